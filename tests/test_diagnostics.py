"""The run diagnostics (`fastperf.engine.diagnostics`): the MSER-5 warm-up and its test, Tukey's
fences, the Mann-Kendall trend and the slope, the timer's quantum and ties, the coefficient of
variation, the flags, advice and statuses.

Oracles: brute-force MSER and Mann-Kendall, Tukey's fences from ``np.percentile``, the quantum
by a loop over pairs (tests/naive.py); scipy's ``ttest_1samp``, ``ttest_ind`` and
``kendalltau``; ``np.polyfit``; numpy's moments; a loop over groups one at a time.
"""
from __future__ import annotations

import math

import numpy as np
import pyarrow as pa
import pytest
import scipy.stats as sps

from fastperf.data.levels import Sequences
from fastperf.engine.diagnostics import (FLAGS, Diagnostics, Thresholds, Warmup, diagnose,
                                         find_warmup, steady_mask)
from naive import (iteration_profile, mann_kendall_brute, mser_truncation_brute,
                   quantum_and_ties, tukey_outliers, warmup_brute)

#: The default level and the fewest values Tukey's fences classify, written here from
#: docs/check.md (not read from the code).
WARMUP_ALPHA = 0.01
MIN_FENCE_VALUES = 12
#: The float columns of `diagnose` (its docstring and docs/check.md).
FLOAT_COLUMNS = ("warmup_change", "warmup_pvalue", "dip", "dip_pvalue", "drift_statistic",
                 "drift_pvalue", "drift_per_10", "quantum", "quantum_share", "tied_share", "cv")


def sequences_of(groups, nested=None):
    """Sequences of `groups`: each a list of processes, each a list of values in order."""
    values, processes, group_processes = [], [0], [0]
    for group in groups:
        for process in group:
            values.extend(process)
            processes.append(processes[-1] + len(process))
        group_processes.append(group_processes[-1] + len(group))
    if nested is None:
        nested = any(len(group) > 1 for group in groups)
    values = np.array(values, dtype=float)
    return Sequences(pa.table({"group": np.arange(len(groups))}), values,
                     np.arange(values.size, dtype=np.int64), np.array(processes, np.int64),
                     np.array(group_processes, np.int64), np.zeros(len(groups), np.int64),
                     nested)


def transient_groups(rng, count, processes, iterations, warm=0, effect=0.2, sd=0.03,
                     ragged=False, levels=(0.5, 2.0)):
    """`count` groups of log-normal processes, each at a level drawn uniformly in `levels`,
    the first `warm` values of each times 1 + `effect`; with `ragged`, each process loses a
    random number of its last values."""
    groups = []
    for _ in range(count):
        group = []
        for _ in range(processes):
            x = np.exp(rng.normal(0.0, sd, iterations)) * rng.uniform(*levels)
            x[:warm] *= 1 + effect
            if ragged:
                x = x[:iterations - rng.integers(0, iterations // 2)]
            group.append(list(x))
        groups.append(group)
    return groups


def steady_of(group, found, d):
    """The steady part of each process of `group`."""
    cut = d if found else 0
    return [p[cut:] for p in group]


# ---------------------------------------------------------------------------------- warm-up

@pytest.mark.parametrize("processes, iterations, ragged", [
    (1, 30, False), (1, 12, False), (1, 80, False), (10, 30, False), (20, 5, False),
    (6, 40, True), (3, 24, True)])
def test_mser_truncation_matches_brute_force(processes, iterations, ragged):
    rng = np.random.default_rng(processes * 100 + iterations)
    groups = (transient_groups(rng, 20, processes, iterations, ragged=ragged)
              + transient_groups(rng, 20, processes, iterations, warm=max(1, iterations // 4),
                                 ragged=ragged))
    warmup = find_warmup(sequences_of(groups, nested=processes > 1))
    expected = [mser_truncation_brute(iteration_profile([np.log(p) for p in g]))
                for g in groups]
    np.testing.assert_array_equal(warmup.iterations, expected)


@pytest.mark.parametrize("processes, iterations", [(1, 30), (1, 12), (1, 80), (10, 30), (20, 5)])
def test_a_transient_is_proposed_in_every_group_of_equal_processes(processes, iterations):
    """(Ragged processes are left out: there the profile's last positions reach few processes
    and MSER may prefer to cut nothing.)"""
    rng = np.random.default_rng(processes * 100 + iterations)
    groups = transient_groups(rng, 20, processes, iterations, warm=max(1, iterations // 4))
    warmup = find_warmup(sequences_of(groups, nested=processes > 1))
    assert (warmup.iterations > 0).all()


def assert_warmup_equals_the_oracle(warmup: Warmup, groups, alpha: float) -> list:
    """Every group's warm-up against `warmup_brute` (tests/naive.py: brute-force MSER-5 and
    scipy's t-tests); returns the oracle's truncations."""
    oracle = [warmup_brute(group, alpha) for group in groups]
    d, pvalue, change, found = (np.array(column) for column in zip(*oracle))
    np.testing.assert_array_equal(warmup.iterations, d)
    np.testing.assert_allclose(warmup.pvalue, pvalue, rtol=1e-9, atol=0)
    np.testing.assert_allclose(warmup.change, change, rtol=1e-9, atol=1e-15)
    np.testing.assert_array_equal(warmup.found, found)
    return list(d)


def test_nested_warmup_test_is_the_one_sample_t_test_over_processes():
    rng = np.random.default_rng(1)
    groups = (transient_groups(rng, 30, 10, 30, warm=10, effect=0.02)
              + transient_groups(rng, 30, 8, 30, ragged=True))
    warmup = find_warmup(sequences_of(groups), alpha=0.05)
    d = assert_warmup_equals_the_oracle(warmup, groups, alpha=0.05)
    assert sum(x > 0 for x in d) >= 20 and 0 in d  # both tested and untested groups
    assert 0 < warmup.found.sum() < len(groups)


def test_flat_warmup_test_is_welch_or_the_pooled_test_of_one_run():
    rng = np.random.default_rng(2)
    groups = transient_groups(rng, 40, 1, 30, warm=5, effect=0.05)
    # below 25 runs MSER works on single runs: a slow first run is proposed alone (d = 1)
    for _ in range(20):
        x = np.exp(rng.normal(0.0, 0.02, 15))
        x[0] *= 1.1
        groups.append([list(x)])
    warmup = find_warmup(sequences_of(groups))
    d = assert_warmup_equals_the_oracle(warmup, groups, alpha=WARMUP_ALPHA)
    assert 1 in d and any(x > 1 for x in d)  # the pooled test of one run and Welch's


def test_warmup_on_the_linear_scale_where_a_value_is_not_positive():
    rng = np.random.default_rng(3)
    x = rng.normal(0.0, 1.0, 30)
    x[:10] += 3.0
    warmup = find_warmup(sequences_of([[list(x)]]))
    assert not warmup.log_scale[0]
    assert warmup.iterations[0] == mser_truncation_brute(x)
    d = warmup.iterations[0]
    assert warmup.pvalue[0] == pytest.approx(
        sps.ttest_ind(x[:d], x[d:], equal_var=False).pvalue, rel=1e-9)
    assert warmup.change[0] == pytest.approx((x[:d].mean() - x[d:].mean())
                                             / abs(x[d:].mean()), rel=1e-9)


def test_steady_mask_drops_the_found_transient_of_each_process():
    rng = np.random.default_rng(4)
    groups = (transient_groups(rng, 5, 10, 30, warm=10)
              + transient_groups(rng, 5, 10, 30, ragged=True)
              + transient_groups(rng, 5, 1, 30, warm=10))
    sequences = sequences_of(groups)
    warmup = find_warmup(sequences)
    mask = steady_mask(sequences, warmup)
    expected = []
    for g, group in enumerate(groups):
        cut = warmup.iterations[g] if warmup.found[g] else 0
        for process in group:
            expected.extend(i >= cut for i in range(len(process)))
    np.testing.assert_array_equal(mask, expected)
    # MSER may take a batch more than the transient (noise): never less
    assert warmup.found[:5].all() and (warmup.iterations[:5] >= 10).all()


def test_warmup_that_cannot_be_tested_has_no_pvalue_and_a_status():
    # two processes, the second too short to have steady values: one difference
    x = list(np.exp(np.r_[np.full(5, 0.3), np.random.default_rng(5).normal(0, 0.01, 25)]))
    warmup = find_warmup(sequences_of([[x, x[:3]], [x]]), alpha=0.5)
    assert warmup.iterations[0] == 5 and np.isnan(warmup.pvalue[0])
    assert not warmup.found[0] and warmup.status[0].startswith("warm-up not tested")
    assert warmup.status[1] == "ok"


def test_warmup_calibration_on_clean_and_transient_data():
    """The default level: on clean log-normal data at most 5 % false alarms, a 10-iteration
    transient at +20 % (noise 5 % in log) found in at least 90 % (a small run of the
    simulation docs/check.md reports)."""
    rng = np.random.default_rng(6)
    for processes, iterations, warm in ((1, 30, 10), (10, 30, 10), (20, 5, 2)):
        shape = (400, processes, iterations)
        clean = np.exp(rng.normal(0.0, 0.05, shape))
        dirty = clean.copy()
        dirty[:, :, :warm] *= 1.2
        rates = []
        for x in (clean, dirty):
            groups = [[list(p) for p in group] for group in x]
            rates.append(find_warmup(sequences_of(groups, nested=processes > 1)).found.mean())
        assert rates[0] <= 0.05 and rates[1] >= 0.9, (processes, iterations, rates)


# ------------------------------------------------------------------------ steady statistics

def mixed_groups(rng):
    """Groups of every kind: flat and nested, transients, outliers, ties, trends, a linear
    scale, tiny and constant groups."""
    groups = transient_groups(rng, 6, 1, 40, warm=10) + transient_groups(rng, 6, 10, 20,
                                                                          warm=5)
    groups += transient_groups(rng, 4, 7, 15, ragged=True)
    for _ in range(6):  # outliers, ties, a trend
        x = np.exp(rng.normal(0.0, 0.02, 60))
        x[rng.integers(0, 60, 3)] *= rng.uniform(1.05, 1.5, 3)
        x *= np.exp(0.002 * np.arange(60) * rng.choice([-1, 0, 1]))
        groups.append([list(np.round(x, 2))])
    groups.append([list(rng.normal(0.0, 1.0, 30))])  # linear scale
    groups.append([[2.0, 2.0, 2.0, 2.0]])  # constant
    groups.append([[1.5]])
    groups.append([[1.0, 3.0]])
    groups.append([[1.0], [2.0], [4.0]])
    return groups


def steady_oracle(group) -> dict:
    """One group's steady statistics by the oracles of tests/naive.py, numpy and np.polyfit
    (NaN where one is not defined), its warm-up by `warmup_brute`."""
    d, _, _, found = warmup_brute(group, WARMUP_ALPHA)
    steady = steady_of(group, found, d)
    raw = np.concatenate([np.asarray(p, float) for p in steady])
    log = bool((np.concatenate(group) > 0).all())
    scaled = np.log(raw) if log else raw
    mild, severe = tukey_outliers(scaled) if raw.size >= MIN_FENCE_VALUES else (0, 0)
    quantum, tied = quantum_and_ties(raw)
    median, mean = np.median(raw), raw.mean()
    # the trend: the steady runs in order, or the processes' steady means in order
    trend = (scaled if len(group) == 1
             else np.array([np.mean(np.log(p) if log else p) for p in steady if len(p)]))
    # S: a sum over the pairs (NaN without one)
    s, _, p = mann_kendall_brute(list(trend)) if trend.size >= 2 else (math.nan, 0, math.nan)
    slope = np.polyfit(np.arange(trend.size), trend, 1)[0] if trend.size >= 2 else math.nan
    return {
        "scale": "log" if log else "linear",
        "n_steady": raw.size,
        "outliers_mild": mild,
        "outliers_severe": severe,
        "quantum": quantum,
        "quantum_share": quantum / abs(median) if median != 0 else math.nan,
        "tied_share": tied,
        "cv": raw.std(ddof=1) / abs(mean) if raw.size > 1 and mean != 0 else math.nan,
        "drift_statistic": s,
        "drift_pvalue": p if trend.size >= 3 else math.nan,
        "drift_per_10": (math.expm1(10 * slope) if log else 10 * slope / abs(mean))
        if mean != 0 else math.nan,
    }


def test_steady_statistics_match_their_oracles():
    rng = np.random.default_rng(7)
    groups = mixed_groups(rng)
    columns = diagnose(sequences_of(groups)).columns
    oracle = [steady_oracle(group) for group in groups]
    for name in ("scale", "n_steady", "outliers_mild", "outliers_severe"):
        assert list(columns[name]) == [o[name] for o in oracle], name
    for name, rtol, atol in (("quantum", 0, 0), ("quantum_share", 1e-12, 0),
                             ("tied_share", 0, 1e-15), ("cv", 1e-10, 0),
                             ("drift_statistic", 0, 0), ("drift_pvalue", 1e-9, 0),
                             ("drift_per_10", 1e-8, 1e-14)):
        expected = np.array([o[name] for o in oracle], dtype=float)
        # NaN exactly where the oracle has none (equal_nan)
        np.testing.assert_allclose(columns[name], expected, rtol=rtol, atol=atol, err_msg=name)
    # every case is in the data: NaN and numbers, fences and none
    for name in ("quantum", "cv", "drift_pvalue", "drift_per_10"):
        values = np.array([o[name] for o in oracle], dtype=float)
        assert np.isnan(values).any() and np.isfinite(values).any(), name
    assert any(o["outliers_severe"] + o["outliers_mild"] > 0 for o in oracle)
    assert "linear" in columns["scale"] and any(o["n_steady"] < MIN_FENCE_VALUES for o in oracle)


def test_mann_kendall_against_kendalltau_with_ties():
    rng = np.random.default_rng(8)
    groups = []
    for n in (3, 10, 57, 200, 1000):
        y = np.round(np.exp(rng.normal(0, 0.05, n) + 0.0003 * np.arange(n)), 2)
        groups.append([list(y)])
    result = diagnose(sequences_of(groups))
    warmup = find_warmup(sequences_of(groups))
    for g, group in enumerate(groups):
        y = np.log(steady_of(group, warmup.found[g], warmup.iterations[g])[0])
        n = y.size
        tau = sps.kendalltau(np.arange(n), y, method="asymptotic")
        # tau-b with x untied: S / sqrt(n0 (n0 - n2)); its p has no continuity correction
        n0 = n * (n - 1) / 2
        _, counts = np.unique(y, return_counts=True)
        n2 = np.sum(counts * (counts - 1) / 2)
        s = tau.statistic * math.sqrt(n0 * (n0 - n2))
        assert result.columns["drift_statistic"][g] == pytest.approx(s, abs=1e-6)
        variance = (s / sps.norm.isf(tau.pvalue / 2)) ** 2
        z = (abs(s) - 1) / math.sqrt(variance)
        assert result.columns["drift_pvalue"][g] == pytest.approx(2 * sps.norm.sf(z),
                                                                  rel=1e-6)


def test_batched_equals_one_group_at_a_time_and_groups_are_independent():
    rng = np.random.default_rng(9)
    groups = mixed_groups(rng)
    together = diagnose(sequences_of(groups))
    order = rng.permutation(len(groups))
    shuffled = diagnose(sequences_of([groups[i] for i in order]))
    for g, group in enumerate(groups):
        alone = diagnose(sequences_of([group], nested=True))
        assert alone.status[0] == together.status[g]
        assert alone.advice[0] == together.advice[g]
        np.testing.assert_array_equal(alone.flags[0], together.flags[g])
        for name, column in together.columns.items():
            np.testing.assert_array_equal(alone.columns[name][0], column[g], err_msg=name)
    for name, column in together.columns.items():
        np.testing.assert_array_equal(shuffled.columns[name], column[order], err_msg=name)


# ---------------------------------------------------------------- flags, advice and statuses

def test_flags_follow_their_thresholds_and_say_why():
    rng = np.random.default_rng(10)
    warm = transient_groups(rng, 1, 10, 30, warm=10, levels=(1.0, 1.0))[0]
    few = [list(np.exp(rng.normal(0, 0.01, 20))) for _ in range(3)]
    outliers = list(np.exp(rng.normal(0, 0.01, 40)))
    outliers[7] *= 1.5
    drift = list(np.exp(rng.normal(0, 0.005, 60) + 0.001 * np.arange(60)))
    coarse = list(np.round(np.exp(rng.normal(0, 0.02, 30)) * 2, 1))
    noisy = list(np.exp(rng.normal(0, 0.3, 40)))
    constant = [3.0] * 10
    nested = diagnose(sequences_of([warm, few]))
    groups = [[outliers], [drift], [coarse], [noisy], [constant], []]
    result = diagnose(sequences_of(groups))
    text = nested.flag_text() + result.flag_text()
    advice = nested.advice + result.advice
    assert result.flags.shape == (len(groups), len(FLAGS))
    assert text[0] == "warmup"
    assert "slower: drop them (warmup=\"auto\")" in advice[0]
    d, _, change, found = warmup_brute(warm, WARMUP_ALPHA)
    assert found and d == 10  # the oracle's MSER, moved back to the 10 slow iterations
    assert advice[0].startswith(f"the first 10 iterations are {change:.0%} slower")
    assert nested.columns["warmup_change"][0] > 0.1
    assert text[1] == "few runs" and advice[1] == "3 processes: run at least 5"
    assert text[2] == "outliers"
    assert advice[2].startswith("1 severe outlier: look for interference")
    # (a steady drift also reads as a transient: its first part differs from the rest)
    assert "drift" in text[3] and "per 10 runs: interleave" in advice[3]
    assert result.columns["drift_per_10"][1] == pytest.approx(math.expm1(0.01), rel=0.2)
    assert "resolution" in text[4]
    assert advice[4].startswith("values come in steps of 0.1, 5.0% of the median: ")
    assert result.columns["quantum"][2] == pytest.approx(0.1)
    assert "noisy" in text[5] and "of the mean: quiet the machine" in advice[5]
    assert "resolution" in text[6] and result.columns["tied_share"][4] == 0.9
    assert advice[6].startswith("every value is 3")
    assert text[7] == "few runs" and result.status[5] == "no values"
    thresholds = Thresholds(noisy_cv=0.5, min_units=2, resolution=0.5)
    assert diagnose(sequences_of([warm, few]), thresholds).flag_text()[1] == ""
    relaxed = diagnose(sequences_of(groups), thresholds).flag_text()
    assert "noisy" not in relaxed[3] and "resolution" not in relaxed[2]


def test_no_nan_leaves_with_status_ok():
    rng = np.random.default_rng(11)
    groups = mixed_groups(rng)
    result = diagnose(sequences_of(groups))
    ok = result.status == "ok"
    assert ok.sum() >= 10
    for name in FLOAT_COLUMNS:
        assert not np.isnan(result.columns[name][ok]).any(), name
        assert not np.isinf(result.columns[name][ok]).any(), name
    statuses = set(result.status)
    assert "fewer than 2 values: no cv; fewer than 4 values: no dip test; fewer than 3 " \
           "processes: no trend test; fewer than 2 distinct values: no quantum" in statuses


def test_linear_groups_with_mean_or_median_zero_give_reasons_not_nan_with_ok():
    """[1, -1, -1, 1] (mean and median 0), [0, -1, 0, 0] (median 0) and three runs at 3 before
    [1, -1] ten times (a transient of 3 runs, found by hand: MSER's score 20/400 at d = 3 is the
    least; its steady mean and median 0): the shares that divide by 0 are NaN with their
    reasons, never inf, never with status "ok"; ``noisy`` and ``resolution`` are not raised
    from them."""
    groups = [[[1.0, -1.0, -1.0, 1.0]], [[0.0, -1.0, 0.0, 0.0]],
              [[3.0, 3.0, 3.0] + [1.0, -1.0] * 10]]
    result = diagnose(sequences_of(groups))
    columns, status = result.columns, result.status
    assert list(columns["scale"]) == ["linear"] * 3
    for name in FLOAT_COLUMNS:
        assert not np.isinf(columns[name]).any(), name
    for g in range(3):
        assert "median 0: no quantum share" in status[g] and np.isnan(columns["quantum_share"][g])
    for g in (0, 2):
        assert "mean 0: no cv" in status[g] and np.isnan(columns["cv"][g])
        assert "mean 0: no relative drift" in status[g]
        assert np.isnan(columns["drift_per_10"][g])
    assert columns["warmup_iterations"][2] == 3 and result.flags[2, 0]
    assert "steady mean 0: no relative warm-up change" in status[2]
    assert np.isnan(columns["warmup_change"][2])
    assert columns["cv"][1] == pytest.approx(np.std([0, -1, 0, 0], ddof=1) / 0.25, rel=1e-12)
    assert result.flag_text() == ["few runs", "noisy, few runs", "warmup"]
    assert "nan" not in result.advice[2]


def test_result_types():
    result = diagnose(sequences_of([[[1.0, 2.0, 3.0, 4.0, 5.0]]]))
    assert isinstance(result, Diagnostics)
    assert isinstance(find_warmup(sequences_of([[[1.0, 2.0]]])), Warmup)
    assert list(result.columns)[:3] == ["scale", "n_steady", "warmup_iterations"]


