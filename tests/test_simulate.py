"""fastperf.simulate: the layout of its tables, determinism, and that the data carry the truth
they claim, checked with numpy/scipy statistics on the values (the noise formulas of
docs/simulate.md: medians, ties, correlations, mode shares, the tail index), and argument errors.
"""
import math

import numpy as np
import pyarrow as pa
import pytest
import scipy.stats as sps
from statsmodels.regression.mixed_linear_model import MixedLM

import fastperf
from fastperf import InputError

LABEL = pa.dictionary(pa.int32(), pa.string())


def values(sim, variant):
    """The runs of `variant` as a benchmarks x runs array (rows are ordered variant, benchmark, run)."""
    t = sim.table
    mask = np.asarray(t.column("variant").cast(pa.string()).to_numpy(zero_copy_only=False) == variant)
    n_bench = sim.truth.num_rows
    return t.column("value").to_numpy()[mask].reshape(n_bench, -1)


# ---------------------------------------------------------------------------- layout


def test_columns_types_and_order():
    sim = fastperf.simulate(benchmarks=4, runs=3, seed=1)
    t = sim.table
    assert t.column_names == ["benchmark", "variant", "run", "value", "unit"]
    assert [t.schema.field(c).type for c in t.column_names] == [LABEL, LABEL, pa.int32(), pa.float64(), LABEL]
    assert t.num_rows == 2 * 4 * 3
    assert t.column("benchmark").to_pylist() == [f"bench_{i:05d}" for i in range(4) for _ in range(3)] * 2
    assert t.column("variant").to_pylist() == ["baseline"] * 12 + ["candidate"] * 12
    assert t.column("run").to_pylist() == [0, 1, 2] * 8
    assert set(t.column("unit").to_pylist()) == {"s"}
    assert t.column("value").null_count == 0 and np.all(t.column("value").to_numpy() > 0)
    assert sim.truth.column_names == ["benchmark", "true_speedup", "kind", "shape", "sigma", "base"]
    assert sim.truth.column("benchmark").to_pylist() == [f"bench_{i:05d}" for i in range(4)]
    table, truth = sim  # unpacks
    assert table is sim.table and truth is sim.truth


def test_variant_names_count_and_unit_options():
    sim = fastperf.simulate(benchmarks=2, runs=2, variants=4, unit=None)
    assert sim.table.column_names == ["benchmark", "variant", "run", "value"]
    assert list(dict.fromkeys(sim.table.column("variant").to_pylist())) == [
        "baseline", "candidate", "variant_2", "variant_3"]
    sim = fastperf.simulate(benchmarks=2, runs=2, variants=["gcc", "clang", "icc"])
    assert list(dict.fromkeys(sim.table.column("variant").to_pylist())) == ["gcc", "clang", "icc"]
    s = fastperf.simulate(benchmarks=50, runs=5, seed=3)
    ns = fastperf.simulate(benchmarks=50, runs=5, seed=3, unit="ns")
    assert set(ns.table.column("unit").to_pylist()) == {"ns"}
    np.testing.assert_allclose(ns.table.column("value").to_numpy(), s.table.column("value").to_numpy() * 1e9,
                               rtol=1e-15)
    np.testing.assert_allclose(ns.truth.column("base").to_numpy(), s.truth.column("base").to_numpy() * 1e9)


def test_readable_by_fastperf_functions():
    table, _ = fastperf.simulate(benchmarks=5, runs=7, seed=2)
    read = fastperf.read(table)
    assert read.num_rows == table.num_rows
    groups = fastperf.describe(table).groups
    assert groups.num_rows == 10 and set(groups.column("n").to_pylist()) == {7}


def test_large_tables_have_wide_names():
    truth = fastperf.simulate(benchmarks=100_001, runs=1, seed=0).truth
    names = truth.column("benchmark")
    assert names[0].as_py() == "bench_00000" and names[99_999].as_py() == "bench_99999"
    assert names[100_000].as_py() == "bench_100000"


# ---------------------------------------------------------------------------- determinism


def test_same_seed_same_tables_other_seed_other_values():
    a = fastperf.simulate(benchmarks=30, runs=5, seed=7, paired=True)
    b = fastperf.simulate(benchmarks=30, runs=5, seed=7, paired=True)
    assert a.table.equals(b.table) and a.truth.equals(b.truth)
    c = fastperf.simulate(benchmarks=30, runs=5, seed=8, paired=True)
    assert not np.array_equal(a.table.column("value").to_numpy(), c.table.column("value").to_numpy())
    gen = fastperf.simulate(benchmarks=30, runs=5, seed=np.random.default_rng(7), paired=True)
    assert gen.table.equals(a.table)


def test_effects_do_not_change_the_noise():
    """The same seed draws the same noise whatever `effects`: candidate values scale exactly."""
    plain = fastperf.simulate(benchmarks=40, runs=9, seed=4, effects=1.0, shapes=("lognormal", "heavy_tail"))
    doubled = fastperf.simulate(benchmarks=40, runs=9, seed=4, effects=2.0, shapes=("lognormal", "heavy_tail"))
    np.testing.assert_array_equal(values(plain, "baseline"), values(doubled, "baseline"))
    np.testing.assert_allclose(values(doubled, "candidate"), values(plain, "candidate") / 2, rtol=1e-15)


# ---------------------------------------------------------------------------- the truth


def test_default_truth_mix_and_ranges():
    truth = fastperf.simulate(benchmarks=20_000, runs=1, seed=0).truth
    kind = np.array(truth.column("kind").to_pylist())
    shape = np.array(truth.column("shape").to_pylist())
    s = truth.column("true_speedup").to_numpy()
    for name, share in {"same": 0.55, "tiny": 0.2, "faster": 0.15, "slower": 0.1}.items():
        assert abs(np.mean(kind == name) - share) < 0.015, name
    for name, share in {"lognormal": 0.45, "bimodal": 0.2, "heavy_tail": 0.25, "quantised": 0.1}.items():
        assert abs(np.mean(shape == name) - share) < 0.015, name
    assert np.all(s[kind == "same"] == 1.0)
    assert np.all(np.abs(1 / s[kind == "tiny"] - 1) <= 0.01)
    assert np.all((s[kind == "faster"] >= 1.03) & (s[kind == "faster"] <= 1.5))
    assert np.all((1 / s[kind == "slower"] >= 1.03) & (1 / s[kind == "slower"] <= 1.5))
    sigma, base = truth.column("sigma").to_numpy(), truth.column("base").to_numpy()
    assert sigma.min() >= 0.002 and sigma.max() <= 0.08
    assert base.min() >= 1e-6 and base.max() <= 10.0
    # log-uniform: log10(base) uniform on [-6, 1] (Kolmogorov-Smirnov, not rejected at 1e-3)
    assert sps.kstest(np.log10(base), sps.uniform(-6, 7).cdf).pvalue > 1e-3


@pytest.mark.parametrize("shape", ["lognormal", "bimodal", "heavy_tail", "quantised"])
def test_median_ratio_is_the_true_speedup(shape):
    """Many runs, small noise: baseline median / candidate median = true_speedup (within the
    median's sampling error, about 1.25 sigma / sqrt(runs) per side)."""
    speedups = np.array([1.0, 0.5, 1.004, 1.37, 3.0, 0.8])
    sim = fastperf.simulate(benchmarks=6, runs=2001, seed=11, shapes=shape, sigma=0.004, effects=speedups)
    np.testing.assert_array_equal(sim.truth.column("true_speedup").to_numpy(), 1 / (1 / speedups))
    assert sim.truth.column("kind").to_pylist() == ["same", "slower", "tiny", "faster", "faster", "slower"]
    ratio = np.median(values(sim, "baseline"), axis=1) / np.median(values(sim, "candidate"), axis=1)
    np.testing.assert_allclose(ratio, speedups, rtol=1e-3)


def test_third_variant_gets_the_effect_squared():
    sim = fastperf.simulate(benchmarks=3, runs=2001, seed=5, variants=3, sigma=0.002,
                            shapes="lognormal", effects=[1.1, 0.9, 2.0])
    ratio = np.median(values(sim, "baseline"), axis=1) / np.median(values(sim, "variant_2"), axis=1)
    np.testing.assert_allclose(ratio, np.array([1.1, 0.9, 2.0]) ** 2, rtol=1e-3)


def test_lognormal_noise_has_the_stated_sigma():
    sim = fastperf.simulate(benchmarks=200, runs=101, seed=3, shapes="lognormal", effects=1.0)
    truth = sim.truth
    z = np.log(values(sim, "baseline") / truth.column("base").to_numpy()[:, None]) / truth.column("sigma").to_numpy()[:, None]
    assert abs(z.mean()) < 0.02 and abs(z.std() - 1) < 0.02
    assert sps.kstest(z.ravel(), "norm").pvalue > 1e-3


def test_bimodal_upper_mode_holds_thirty_percent():
    sim = fastperf.simulate(benchmarks=200, runs=101, seed=3, shapes="bimodal", sigma=0.01, effects=1.0)
    base = sim.truth.column("base").to_numpy()[:, None]
    above = values(sim, "baseline") > base * (1 + 2 * 0.01)
    # 0.7 P(z > 2) + 0.3 P(z > -2): the lower mode's tail plus (almost all of) the upper mode
    expected = 0.7 * sps.norm.sf(np.log1p(0.02) / 0.01) + 0.3 * sps.norm.sf(np.log((1.02) / 1.04) / 0.01)
    assert abs(above.mean() - expected) < 0.01


def test_heavy_tail_has_pareto_outliers():
    """x / (base exp(sigma z)) - 1 = sigma L with L ~ Lomax(3): P(L > t) = (1 + t)^-3."""
    sim = fastperf.simulate(benchmarks=100, runs=401, seed=9, shapes="heavy_tail", sigma=0.001, effects=1.0)
    x = values(sim, "baseline") / sim.truth.column("base").to_numpy()[:, None]
    lomax = (x - 1) / 0.001  # the log-normal factor (sd 0.001) moves it by about +-1 only
    for t in (5.0, 10.0):
        assert abs(np.mean(lomax > t) - (1 + t) ** -3.0) < 0.25 * (1 + t) ** -3.0
    assert np.mean(lomax > 20) > 0  # outliers 2 % above the base and more
    assert sps.skew(x.ravel()) > 3


def test_quantised_values_are_multiples_of_the_step_with_ties():
    sim = fastperf.simulate(benchmarks=50, runs=31, seed=6, shapes="quantised", sigma=0.01,
                            effects=1.5)
    truth = sim.truth
    step = (truth.column("base").to_numpy() * 0.01)[:, None]
    for variant, scale in (("baseline", 1.0), ("candidate", 1 / 1.5)):
        q = values(sim, variant) / (step * scale)
        np.testing.assert_allclose(q, np.round(q), atol=1e-6)
        distinct = [len(np.unique(row)) for row in values(sim, variant)]
        assert max(distinct) <= 12  # about +-3 sigma / step = +-3 levels around 100; 31 runs
    unquantised = fastperf.simulate(benchmarks=50, runs=31, seed=6, shapes="lognormal", sigma=0.01)
    assert all(len(np.unique(row)) == 31 for row in values(unquantised, "baseline"))


def centred_logs(a):
    la = np.log(a)
    return (la - la.mean(axis=1, keepdims=True)).ravel()


@pytest.mark.parametrize("paired, expected", [(True, 0.2), (False, 0.0)])
def test_paired_runs_share_a_factor(paired, expected):
    """log x = sigma z + sigma z'/2: the variants' log-values correlate by
    (1/4) / (1 + 1/4) = 0.2 when the run factor z' is shared, 0 when it is not."""
    sim = fastperf.simulate(benchmarks=200, runs=101, seed=2, shapes="lognormal", sigma=0.02,
                            effects=1.3, paired=paired)
    r = np.corrcoef(centred_logs(values(sim, "baseline")), centred_logs(values(sim, "candidate")))[0, 1]
    assert abs(r - expected) < 0.03  # about 4 standard errors (1 / sqrt(20,000))


def test_fixed_sigma_and_base():
    truth = fastperf.simulate(benchmarks=10, runs=2, sigma=0.05, base=2e-3).truth
    assert set(truth.column("sigma").to_pylist()) == {0.05}
    assert set(truth.column("base").to_pylist()) == {2e-3}
    truth = fastperf.simulate(benchmarks=10, runs=2, base=2.0, unit="ms").truth
    assert set(truth.column("base").to_pylist()) == {2000.0}


def test_shape_weights_mapping():
    truth = fastperf.simulate(benchmarks=4000, runs=1, shapes={"bimodal": 1, "quantised": 3}).truth
    shape = np.array(truth.column("shape").to_pylist())
    assert set(shape) == {"bimodal", "quantised"}
    assert abs(np.mean(shape == "quantised") - 0.75) < 0.03


# ---------------------------------------------------------------------------- nested designs


def test_flat_tables_are_what_they_were():
    """Nested designs draw from a stream of their own: a flat table of a seed holds the values
    the simulator wrote before they existed (recorded here from that version, to 1e-12)."""
    plain = fastperf.simulate(benchmarks=40, runs=7, seed=7, unit=None).table.column("value")
    v = plain.to_numpy()
    np.testing.assert_allclose(v.sum(), 349.29320813819004, rtol=1e-12)
    np.testing.assert_allclose(v[[0, 100, 279, 280, 559]],
                               [0.023633053010324534, 0.003420091271222709, 1.2006976637905273e-05,
                                0.02362874957961148, 1.2015361558696024e-05], rtol=1e-12)
    v = fastperf.simulate(benchmarks=40, runs=7, seed=7, paired=True, variants=3,
                          unit=None).table.column("value").to_numpy()
    np.testing.assert_allclose(v.sum(), 507.64347200308765, rtol=1e-12)
    np.testing.assert_allclose(v[[0, 100, 279, 280, 839]],
                               [0.02369658892235175, 0.0033743692773118054, 1.2199716548606303e-05,
                                0.023524355464416457, 1.1811431223304006e-05], rtol=1e-12)
    assert fastperf.simulate(benchmarks=4, seed=1).table.num_rows == 2 * 4 * 31  # runs=None: 31


def test_nested_layout():
    sim = fastperf.simulate(benchmarks=3, processes=4, iterations=2, icc=0.5, seed=1)
    t = sim.table
    assert t.column_names == ["benchmark", "variant", "run", "process", "iteration", "value", "unit"]
    assert [t.schema.field(c).type for c in ("run", "process", "iteration")] == [pa.int32()] * 3
    assert t.num_rows == 2 * 3 * 4 * 2
    assert t.column("process").to_pylist() == [0, 0, 1, 1, 2, 2, 3, 3] * 6
    assert t.column("iteration").to_pylist() == [0, 1] * 24
    assert t.column("run").to_pylist() == list(range(8)) * 6
    assert t.column("benchmark").to_pylist() == [f"bench_{i:05d}" for i in range(3) for _ in range(8)] * 2
    assert sim.truth.column_names == ["benchmark", "true_speedup", "kind", "shape", "sigma", "base",
                                      "process_sd", "iteration_sd"]
    r = fastperf.simulate(benchmarks=2, rounds=3, seed=1, unit=None)  # iterations: 1
    assert r.table.column_names == ["benchmark", "variant", "run", "round", "process", "iteration",
                                    "value"]
    assert r.table.column("round").to_pylist() == [0, 1, 2] * 4
    assert r.table.column("process").to_pylist() == [0, 1, 2] * 4
    assert r.table.column("iteration").to_pylist() == [0] * 12
    assert fastperf.simulate(benchmarks=2, processes=3, iterations=2, runs=6).table.num_rows == 24


def test_nested_without_process_effect_is_the_flat_table():
    """icc=0 and no drift: the values of P x I runs, as the flat table of P * I runs draws them."""
    for shapes in ("lognormal", "bimodal", "heavy_tail", "quantised"):
        nested = fastperf.simulate(benchmarks=20, processes=5, iterations=3, seed=4, shapes=shapes)
        flat = fastperf.simulate(benchmarks=20, runs=15, seed=4, shapes=shapes)
        np.testing.assert_array_equal(nested.table.column("value").to_numpy(),
                                      flat.table.column("value").to_numpy())
        np.testing.assert_array_equal(nested.truth.column("process_sd").to_numpy(), 0.0)


def test_nested_same_seed_same_tables():
    kwargs = {"benchmarks": 20, "rounds": 6, "iterations": 3, "icc": 0.4, "drift": 0.02}
    a = fastperf.simulate(seed=7, **kwargs)
    assert a.table.equals(fastperf.simulate(seed=7, **kwargs).table)
    assert a.table.equals(fastperf.simulate(seed=np.random.default_rng(7), **kwargs).table)
    assert a.truth.equals(fastperf.simulate(seed=7, **kwargs).truth)
    assert not a.table.equals(fastperf.simulate(seed=8, **kwargs).table)


def one_way_anova_icc(logs):
    """The closed-form one-way random-effects ANOVA estimate of the ICC, averaged over groups:
    `logs` is (groups, processes, iterations); per group sigma_b^2 = (MSB - MSW) / I, and the
    ICC is mean sigma_b^2 / (mean sigma_b^2 + mean MSW) (unbiased components, balanced data)."""
    groups, p, i = logs.shape
    process_means = logs.mean(axis=2)
    msw = ((logs - process_means[:, :, None]) ** 2).sum(axis=(1, 2)) / (p * (i - 1))
    msb = i * ((process_means - process_means.mean(axis=1, keepdims=True)) ** 2).sum(axis=1) / (p - 1)
    between, within = ((msb - msw) / i).mean(), msw.mean()
    return between / (between + within), between, within


@pytest.mark.parametrize("shape", ["lognormal", "bimodal", "heavy_tail", "quantised"])
@pytest.mark.parametrize("icc", [0.2, 0.5, 0.8])
def test_icc_of_the_log_values_is_the_one_asked_for(shape, icc):
    """400 benchmarks x 2 variants, 20 processes x 5 iterations, no change: the one-way ANOVA
    estimate of the ICC of the log values is the `icc` asked for (its standard error is about
    0.01 here); for log-normal noise the process effect's variance is icc sigma^2 and the total
    sigma^2, and the truth's process_sd and iteration_sd are those the ANOVA finds."""
    sigma = 0.04
    sim = fastperf.simulate(benchmarks=400, processes=20, iterations=5, icc=icc, shapes=shape,
                            sigma=sigma, base=1.0, effects=1.0, unit=None, seed=12)
    logs = np.log(sim.table.column("value").to_numpy()).reshape(800, 20, 5)
    estimate, between, within = one_way_anova_icc(logs)
    assert abs(estimate - icc) < 0.03, (estimate, icc)
    truth = sim.truth
    np.testing.assert_allclose(truth.column("process_sd").to_numpy() ** 2, between, rtol=0.12)
    np.testing.assert_allclose(truth.column("iteration_sd").to_numpy() ** 2, within, rtol=0.03)
    if shape == "lognormal":
        np.testing.assert_allclose(truth.column("process_sd").to_numpy(), math.sqrt(icc) * sigma,
                                   rtol=1e-12)
        np.testing.assert_allclose(between + within, sigma ** 2, rtol=0.06)


def test_icc_matches_statsmodels_mixedlm():
    """One benchmark, 300 processes x 4 iterations at ICC 0.6 (log-normal): the REML variance
    components of statsmodels' MixedLM (random intercept per process) give the ICC asked for."""
    sim = fastperf.simulate(benchmarks=1, processes=300, iterations=4, icc=0.6, shapes="lognormal",
                            sigma=0.05, base=1.0, effects=1.0, variants=("a", "b"), unit=None,
                            seed=3)
    t = sim.table.slice(0, 1200)
    logs = np.log(t.column("value").to_numpy()) / 0.05  # unit variance: the optimiser's scale
    fit = MixedLM(logs, np.ones((logs.size, 1)), groups=t.column("process").to_numpy()).fit(reml=True)
    between, within = float(np.asarray(fit.cov_re)[0, 0]), float(fit.scale)
    assert abs(between / (between + within) - 0.6) < 0.06


def test_processes_of_the_variants_are_independent():
    """Without rounds each variant runs processes of its own: the baseline's and candidate's
    process means do not correlate (about 0 +- 3 / sqrt(8000))."""
    sim = fastperf.simulate(benchmarks=400, processes=20, iterations=5, icc=0.8, shapes="lognormal",
                            sigma=0.04, base=1.0, effects=1.0, unit=None, seed=5)
    means = np.log(sim.table.column("value").to_numpy()).reshape(2, 400, 20, 5).mean(axis=3)
    r = np.corrcoef(means[0].ravel(), means[1].ravel())[0, 1]
    assert abs(r) < 0.035


def test_rounds_share_a_random_walk_drift():
    """Interleaved rounds, one value a round, no process effect: the drift is a random walk
    shared by both variants, so consecutive rounds of one variant differ by the noise and one
    step (variance 2 sigma^2 + drift^2), while the two variants of a round differ by the noise
    only (variance 2 sigma^2); round 0 starts the walk at 0 (baseline / candidate = the effect)."""
    sigma, drift = 0.01, 0.03
    sim = fastperf.simulate(benchmarks=300, rounds=40, sigma=sigma, base=1.0, shapes="lognormal",
                            effects=1.25, drift=drift, unit=None, seed=9)
    logs = np.log(sim.table.column("value").to_numpy()).reshape(2, 300, 40)
    steps = np.diff(logs[0], axis=1)
    assert abs(steps.var() / (2 * sigma ** 2 + drift ** 2) - 1) < 0.05
    ratio = logs[0] - logs[1]
    assert abs(ratio.mean() - math.log(1.25)) < 0.002
    assert abs(ratio.var() / (2 * sigma ** 2) - 1) < 0.05
    # round 0 carries no drift: its values scatter by the noise only about the base
    assert abs(logs[0][:, 0].std() / sigma - 1) < 0.15
    assert logs[0][:, -1].std() > 5 * sigma  # the walk wandered: drift sqrt(39) = 0.19


def test_rounds_have_their_own_process_effects():
    """With rounds and an ICC, each variant's process of a round has its own effect: the
    variants' round means differ by sqrt(2 (t^2 + v / I)) on the log scale."""
    sim = fastperf.simulate(benchmarks=300, rounds=20, iterations=4, icc=0.5, drift=0.05,
                            sigma=0.02, base=1.0, shapes="lognormal", effects=1.0, unit=None,
                            seed=2)
    logs = np.log(sim.table.column("value").to_numpy()).reshape(2, 300, 20, 4).mean(axis=3)
    expected = 2 * (0.5 * 0.02 ** 2 + 0.5 * 0.02 ** 2 / 4)
    assert abs((logs[0] - logs[1]).var() / expected - 1) < 0.05


# ---------------------------------------------------------------------------- bad arguments


@pytest.mark.parametrize("kwargs, message", [
    ({"benchmarks": 0}, "benchmarks"), ({"benchmarks": 2.5}, "benchmarks"),
    ({"benchmarks": True}, "benchmarks"), ({"runs": 0}, "runs"), ({"runs": "31"}, "runs"),
    ({"variants": ["only"]}, "variants"), ({"variants": 1}, "variants"),
    ({"variants": ["a", "a"]}, "distinct"), ({"variants": "ab"}, "variants"),
    ({"variants": ["a", 3]}, "variants"),
    ({"shapes": ["gamma"]}, "unknown shape 'gamma'"), ({"shapes": {"lognormal": -1}}, "shapes"),
    ({"shapes": {"lognormal": 0}}, "shapes"), ({"shapes": []}, "shapes"), ({"shapes": 3}, "shapes"),
    ({"sigma": 0}, "sigma"), ({"sigma": (0.1, 0.01)}, "sigma"), ({"sigma": "wide"}, "sigma"),
    ({"sigma": math.inf}, "sigma"), ({"base": -1.0}, "base"), ({"base": (1, 2, 3)}, "base"),
    ({"effects": 0.0}, "effects"), ({"effects": [1.0, 2.0]}, "one true speedup per benchmark"),
    ({"effects": [1.0, math.nan, 1.0]}, "effects"), ({"effects": "fast"}, "effects"),
    ({"unit": "minutes"}, "unit"), ({"paired": "yes"}, "paired"), ({"seed": "abc"}, "seed"),
    ({"icc": 0.3}, "icc describes a nested design"), ({"iterations": 3}, "iterations"),
    ({"drift": 0.01}, "drift describes a nested design"),
    ({"processes": 4, "drift": 0.01}, "give rounds="), ({"processes": 0}, "processes"),
    ({"processes": 2.5}, "processes"), ({"processes": 4, "iterations": 0}, "iterations"),
    ({"processes": 4, "icc": 1.0}, r"icc must be a finite number in \[0, 1\)"),
    ({"processes": 4, "icc": -0.1}, "icc"), ({"processes": 4, "icc": "0.5"}, "icc"),
    ({"processes": 4, "icc": math.nan}, "icc"), ({"rounds": 0}, "rounds"),
    ({"rounds": 4, "drift": -1.0}, "drift"), ({"rounds": 4, "drift": math.inf}, "drift"),
    ({"rounds": 4, "processes": 3}, "processes must be left out or equal rounds"),
    ({"processes": 2, "iterations": 3}, "runs: a nested design has"),
])
def test_bad_arguments_name_the_argument(kwargs, message):
    args = {"benchmarks": 3, "runs": 4, **kwargs}
    with pytest.raises(InputError, match=message):
        fastperf.simulate(**args)


def test_keyword_only_after_runs():
    with pytest.raises(TypeError):
        fastperf.simulate(3, 4, ("a", "b"))


def test_docstring_examples_run():
    import doctest
    import sys

    module = sys.modules[fastperf.simulate.__module__]
    failures, tried = doctest.testmod(module)
    assert tried >= 5 and failures == 0
