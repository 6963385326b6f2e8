"""`shapiro` (Shapiro-Wilk, Royston's AS R94) against scipy.stats.shapiro, and properties of W.

Tolerance against scipy: relative 1e-6 on both W and p with no absolute slack (``rtol=1e-6,
atol=0``), so tiny p-values (down to 1e-19 and below) are compared digit by digit too. The port
follows scipy's order of operations, so the observed differences are 0 in practice.
"""
import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
import scipy.stats as sps
from hypothesis import given, settings
from hypothesis import strategies as st

import fastperf
from fastperf import InputError
from fastperf.kernels.normality import shapiro_wilk
from fastperf.stats.normality import ShapiroResult, shapiro
from naive import values_by_key

SIZES = [3, 4, 5, 6, 7, 11, 12, 20, 31, 100, 1000, 5000]
RTOL = 1e-6


def _ties(rng, size):
    """Integers 0..4: many ties, but never a constant sample (the first two values differ)."""
    x = rng.integers(0, 5, size=size).astype(float)
    x[..., 0], x[..., 1] = 0.0, 1.0
    return x


DISTRIBUTIONS = {
    "normal": lambda rng, size: rng.normal(10.0, 2.0, size=size),
    "lognormal": lambda rng, size: rng.lognormal(0.0, 1.0, size=size),
    "uniform": lambda rng, size: rng.uniform(1.0, 2.0, size=size),
    "ties": _ties,
    "heavy-tailed": lambda rng, size: rng.standard_t(1.5, size=size),
}


def scipy_shapiro(sample):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns for n > 5000 and zero range
        res = sps.shapiro(sample)
    return float(res.statistic), float(res.pvalue)


def scipy_rows(batch2d):
    return np.array([scipy_shapiro(row) for row in batch2d]).reshape(-1, 2)


def assert_matches_scipy(w, p, batch2d):
    expected = scipy_rows(batch2d)
    np.testing.assert_allclose(w, expected[:, 0], rtol=RTOL, atol=0)
    np.testing.assert_allclose(p, expected[:, 1], rtol=RTOL, atol=0)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("distribution", sorted(DISTRIBUTIONS))
def test_random_batches_match_scipy(distribution, n):
    rng = np.random.default_rng([n, sorted(DISTRIBUTIONS).index(distribution)])
    batch = 50 if n <= 100 else (10 if n <= 1000 else 4)
    x = DISTRIBUTIONS[distribution](rng, (batch, n))
    res = shapiro(x)
    assert res.statistic.shape == res.pvalue.shape == res.status.shape == (batch,)
    assert (res.status == "ok").all()
    assert_matches_scipy(res.statistic, res.pvalue, x)


def test_p_values_cover_both_branches_and_tails():
    """The comparisons are not vacuous: small-n tails, tiny large-n tails, p from ~0 to ~1.

    (swilk's cut-off p = 1e-19 for n <= 11 lies below the smallest W any sample can have, so
    it is unreachable; it is ported all the same.)"""
    rng = np.random.default_rng(5)
    skewed_small = np.concatenate([rng.lognormal(0, 3, (2000, 5)), [[0, 0, 0, 0, 1]]])
    small = shapiro(skewed_small)
    assert small.pvalue.min() < 2e-4
    assert_matches_scipy(small.statistic, small.pvalue, skewed_small)
    skewed_big = rng.lognormal(0, 1, (3, 2000))
    big = shapiro(skewed_big)
    assert (big.pvalue < 1e-20).all()
    assert_matches_scipy(big.statistic, big.pvalue, skewed_big)
    spread = shapiro(rng.normal(size=(200, 20))).pvalue
    assert spread.min() < 0.01 and spread.max() > 0.99


def test_ragged_batch_of_every_size_from_3_to_80():
    """One kernel call over samples of many sizes (each size twice): the per-size coefficient
    table is indexed right for every sample."""
    rng = np.random.default_rng(11)
    samples = [rng.lognormal(size=n) for n in list(range(3, 81)) * 2]
    rng.shuffle(samples)
    offsets = np.concatenate([[0], np.cumsum([len(s) for s in samples])]).astype(np.int64)
    w, p, status = shapiro_wilk(np.concatenate(samples), offsets, n_rows=int(offsets[-1]))
    assert (status == 0).all()
    expected = np.array([scipy_shapiro(s) for s in samples])
    np.testing.assert_allclose(w, expected[:, 0], rtol=RTOL, atol=0)
    np.testing.assert_allclose(p, expected[:, 1], rtol=RTOL, atol=0)


@pytest.mark.parametrize("shape, axis", [
    ((6, 9), 0), ((6, 9), 1), ((6, 9), -1), ((4, 5, 7), 0), ((4, 5, 7), 1), ((4, 5, 7), 2),
    ((4, 5, 7), -1), ((4, 5, 7), -2),
])
def test_axis_matches_scipy_axis(shape, axis):
    x = np.random.default_rng(3).gamma(2.0, size=shape)
    res = shapiro(x, axis=axis)
    expected = sps.shapiro(x, axis=axis)
    batch_shape = tuple(np.delete(shape, axis))
    assert res.statistic.shape == res.pvalue.shape == res.status.shape == batch_shape
    np.testing.assert_allclose(res.statistic, expected.statistic, rtol=RTOL, atol=0)
    np.testing.assert_allclose(res.pvalue, expected.pvalue, rtol=RTOL, atol=0)


def test_one_sample_gives_scalars_and_unpacks():
    x = [2.1, 2.4, 1.9, 2.2, 2.8, 2.0, 2.3]
    res = shapiro(x)
    assert isinstance(res.statistic, np.float64) and isinstance(res.pvalue, np.float64)
    assert isinstance(res.status, str) and res.status == "ok"
    w, p = res
    assert (w, p) == scipy_shapiro(x)  # bit for bit, in fact
    assert res[0] == w and res[1] == p


def test_series_and_arrow_arrays_are_samples_not_tables():
    x = [2.1, 2.4, 1.9, 2.2, 2.8, 2.0]
    expected = scipy_shapiro(x)
    for sample in (pd.Series(x), pa.array(x), pa.chunked_array([x[:2], x[2:]])):
        res = shapiro(sample)
        assert isinstance(res.statistic, np.float64)
        assert (res.statistic, res.pvalue) == pytest.approx(expected, rel=RTOL)


@pytest.mark.parametrize("sample, status", [
    ([], "n < 3"),
    ([1.0], "n < 3"),
    ([1.0, 2.0], "n < 3"),
    (np.arange(5001.0), "n > 5000"),
    ([1.0, 2.0, np.nan, 4.0], "NaN in input"),
    ([1.0, np.inf, 3.0, 4.0], "infinite value in input"),
    ([1.0, np.nan, np.inf, 4.0], "NaN in input"),
    ([3.5, 3.5, 3.5, 3.5, 3.5], "all values equal (zero range)"),
    ([7.0, 7.0, 7.0], "all values equal (zero range)"),
])
def test_untestable_sample_gives_nan_and_status(sample, status):
    res = shapiro(np.asarray(sample, dtype=float))
    assert np.isnan(res.statistic) and np.isnan(res.pvalue)
    assert res.status == status


def test_bad_samples_do_not_spoil_good_ones():
    rng = np.random.default_rng(8)
    x = rng.lognormal(size=(6, 15))
    x[1, 4] = np.nan
    x[3] = 2.5
    x[4, 0] = -np.inf
    res = shapiro(x)
    assert res.status.tolist() == ["ok", "NaN in input", "ok", "all values equal (zero range)",
                                   "infinite value in input", "ok"]
    good = res.status == "ok"
    assert np.isnan(res.statistic[~good]).all() and np.isnan(res.pvalue[~good]).all()
    assert_matches_scipy(res.statistic[good], res.pvalue[good], x[good])
    # scipy's nan_policy="propagate": the NaN sample's W and p are NaN too
    assert np.isnan(sps.shapiro(x[1]).statistic)


def test_batch_of_too_large_samples():
    res = shapiro(np.random.default_rng(0).normal(size=(2, 5001)))
    assert res.status.tolist() == ["n > 5000"] * 2
    assert np.isnan(res.statistic).all()
    # and the largest size allowed is tested
    x = np.random.default_rng(0).normal(size=5000)
    assert shapiro(x).status == "ok"


def test_range_beyond_float_max_is_tested_not_raised():
    huge = np.array([1e308, -1e308, 0.0, 5.0, 3e307])
    res = shapiro(huge)
    assert res.status == "ok"
    assert res.statistic == pytest.approx(shapiro(huge * 1e-10).statistic, rel=1e-12)


def test_empty_batch_and_empty_samples():
    assert shapiro(np.empty((0, 8))).statistic.shape == (0,)
    res = shapiro(np.empty((3, 0)))
    assert res.status.tolist() == ["n < 3"] * 3


def test_parallel_build_agrees_with_serial_build(parallel_always):
    rng = np.random.default_rng(21)
    x = rng.lognormal(size=(300, 31))
    x[5, 3] = np.nan
    x[7] = 1.0
    values, offsets = x.ravel(), np.arange(301, dtype=np.int64) * 31
    serial = shapiro_wilk.serial(values, offsets)
    res = shapiro(x)  # parallel_always: the prange build
    np.testing.assert_array_equal(res.statistic, serial[0])
    np.testing.assert_array_equal(res.pvalue, serial[1])
    assert (res.status != "ok").sum() == 2 == (serial[2] != 0).sum()
    parallel = shapiro_wilk.parallel(values, offsets)
    for a, b in zip(parallel, serial):
        np.testing.assert_array_equal(a, b)


# ---- properties that need no oracle -------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(3, 200),
       shift=st.floats(-1e6, 1e6), scale=st.floats(1e-2, 1e3),
       skew=st.sampled_from([0.0, 0.5, 1.5]))
def test_w_is_affine_invariant_and_at_most_one(seed, n, shift, scale, skew):
    rng = np.random.default_rng(seed)
    x = rng.lognormal(0.0, skew, size=n) if skew else rng.normal(size=n)
    w, p = shapiro(x)
    assert 0 < w <= 1 and 0 <= p <= 1
    moved = shapiro(shift + scale * x)
    assert moved.statistic == pytest.approx(w, rel=1e-6)
    assert moved.pvalue == pytest.approx(p, rel=1e-4, abs=1e-12)
    mirrored = shapiro(-x)  # W uses |sum a_i x_(i)|: a reflection changes nothing either
    assert mirrored.statistic == pytest.approx(w, rel=1e-12)


def test_n3_exact_values():
    """n = 3: W = (x_(3) - x_(1))^2 / (2 SS), p = 1 - (6/pi) acos(sqrt(W)) exactly."""
    assert tuple(shapiro([0.0, 1.0, 2.0])) == pytest.approx((1.0, 1.0), abs=1e-12)
    assert tuple(shapiro([0.0, 0.0, 1.0])) == pytest.approx((0.75, 0.0), abs=1e-12)
    x = np.array([0.0, 1.0, 5.0])
    w_closed = 25.0 / 2.0 / ((x - x.mean()) ** 2).sum()
    w, p = shapiro(x)
    assert w == pytest.approx(w_closed, rel=1e-12)
    assert p == pytest.approx(1 - 6 / math.pi * math.acos(math.sqrt(w_closed)), rel=1e-12)


@pytest.mark.parametrize("n", [3, 8, 25])
def test_p_values_are_calibrated_on_normal_data(n):
    """Under H0, p is (about) uniform: the rejection rate at 0.05 and 0.5 on 20,000 normal
    samples is near 0.05 and 0.5 (exact for n = 3; Royston's approximation otherwise)."""
    p = shapiro(np.random.default_rng(n).normal(size=(20_000, n))).pvalue
    assert abs((p <= 0.05).mean() - 0.05) < 0.008
    assert abs((p <= 0.5).mean() - 0.5) < 0.02
    skewed = shapiro(np.random.default_rng(n).exponential(size=(2_000, 25))).pvalue
    assert (skewed <= 0.05).mean() > 0.5  # and the test has power against a skewed law


# ---- table form -----------------------------------------------------------------------------

def measurement_table():
    rng = np.random.default_rng(4)
    rows = []
    for bench, sizes in {"parse": (12, 9), "render": (30, 31), "tiny": (2, 3),
                         "flat": (5, 6)}.items():
        for variant, n in zip(("old", "new"), sizes):
            values = list(rng.lognormal(0.0, 0.4, size=n))
            if bench == "flat" and variant == "old":
                values = [4.0] * n
            rows += [(bench, variant, v) for v in values]
    rows.insert(3, ("parse", "old", None))
    rows.append(("render", "new", float("nan")))
    rows.append(("render", "new", None))
    bench, variant, value = zip(*rows)
    return pa.table({"benchmark": list(bench), "variant": list(variant),
                     "value": pa.array(value, type=pa.float64())})


def test_table_form_matches_scipy_per_group():
    table = measurement_table()
    res = shapiro(table)
    assert isinstance(res, ShapiroResult)
    out = res.groups
    assert out.column_names == ["benchmark", "variant", "n", "n_dropped", "statistic", "pvalue",
                                "status"]
    reference = values_by_key(table, ["benchmark", "variant"])
    assert out.num_rows == len(reference) == 8
    for row in out.to_pylist():
        raw = reference[(row["benchmark"], row["variant"])]
        kept = np.array([v for v in raw if v is not None and not math.isnan(v)])
        assert row["n"] == len(kept)
        assert row["n_dropped"] == len(raw) - len(kept)
        if len(kept) < 3:
            assert row["status"] == "n < 3"
            assert math.isnan(row["statistic"]) and math.isnan(row["pvalue"])
        elif np.ptp(kept) == 0:
            assert row["status"] == "all values equal (zero range)"
            assert math.isnan(row["statistic"])
        else:
            assert row["status"] == "ok"
            w, p = scipy_shapiro(kept)
            assert row["statistic"] == pytest.approx(w, rel=RTOL, abs=0)
            assert row["pvalue"] == pytest.approx(p, rel=RTOL, abs=0)
    by_key = {(r["benchmark"], r["variant"]): r for r in out.to_pylist()}
    assert by_key[("parse", "old")]["n_dropped"] == 1
    assert by_key[("render", "new")]["n_dropped"] == 2
    assert by_key[("tiny", "old")]["status"] == "n < 3"
    assert res.summary["rows"] == 8
    assert res.summary["rows_tested"] == 6 and res.summary["rows_not_ok"] == 2
    assert res.summary["dropped"] == 3
    assert res.summary["values"] == sum(r["n"] for r in out.to_pylist())
    assert any("3 null/NaN values dropped" in w for w in res.warnings)
    assert any("n < 3" in w for w in res.warnings)
    assert '"statistic": null' in res.to_json()  # NaN as JSON null


def test_table_form_keys_and_sources():
    table = measurement_table()
    frame = table.to_pandas()
    expected = shapiro(table).groups
    # a pandas DataFrame (via __arrow_c_stream__; its strings arrive as large_string)
    from_frame = shapiro(frame).groups
    assert from_frame.column_names == expected.column_names
    for name in expected.column_names:  # NaN compares equal here
        np.testing.assert_array_equal(from_frame.column(name).to_pylist(),
                                      expected.column(name).to_pylist())
    reader = pa.RecordBatchReader.from_batches(table.schema, table.to_batches())
    assert shapiro(reader).groups.to_pandas().equals(expected.to_pandas())
    by_benchmark = shapiro(table, by="benchmark", variant=None).groups
    assert by_benchmark.column_names[:2] == ["benchmark", "n"]
    assert by_benchmark.num_rows == 4
    renamed = table.rename_columns(["bench", "system", "seconds"])
    again = shapiro(renamed, by=["bench"], variant="system", value="seconds").groups
    np.testing.assert_array_equal(again.column("statistic").to_numpy(),
                                  expected.column("statistic").to_numpy())


def test_table_form_from_paths_matches_scipy():
    root = Path(__file__).resolve().parents[1]
    paths = [root / "examples" / "old.txt", root / "examples" / "new.txt"]
    res = shapiro(paths)
    table = fastperf.read(paths)
    reference = values_by_key(table, ["benchmark", "variant"])
    assert res.groups.num_rows == len(reference)
    for row in res.groups.to_pylist():
        w, p = scipy_shapiro(reference[(row["benchmark"], row["variant"])])
        assert (row["statistic"], row["pvalue"]) == pytest.approx((w, p), rel=RTOL, abs=0)


def test_form_specific_arguments_are_rejected_in_the_other_form():
    with pytest.raises(InputError, match="axis"):
        shapiro(measurement_table(), axis=0)
    with pytest.raises(InputError, match="measurement tables"):
        shapiro(np.ones((2, 5)), by="bench")
    with pytest.raises(InputError, match="output column"):
        shapiro(measurement_table().rename_columns(["benchmark", "status", "value"]),
                variant="status")
    with pytest.raises(InputError, match="not found"):
        shapiro(measurement_table(), value="seconds")
    with pytest.raises(InputError, match="numeric"):
        shapiro(np.array(["a", "b", "c"]))
    with pytest.raises(InputError, match="axis=3"):
        shapiro(np.ones((2, 5)), axis=3)
