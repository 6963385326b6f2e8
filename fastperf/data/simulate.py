"""Simulated benchmark measurement tables with a known truth.

`simulate` writes a long measurement table (benchmark, variant, run, value, unit) shaped like real
benchmark telemetry, and a second table with what every benchmark really is: its true speedup,
its kind of change and its noise. Detection rates, false-positive rates and interval coverage of
any method can be measured against that truth; the tests and benchmarks of fastperf use it as
their data. Everything is vectorised with numpy over benchmarks and runs (one step per variant)
and drawn from one ``numpy.random.default_rng(seed)`` stream, so a seed gives the same tables on
every platform numpy supports. Nested designs (processes x iterations, interleaved rounds with a
drift) draw their process effects and drift from a second stream spawned from the first, so the
flat tables of a seed stay what they were.
"""
from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np
import pyarrow as pa

from fastperf.data.budget import check_budget
from fastperf.data.validation import check_choice, check_flag, check_real, check_whole_number
from fastperf.errors import InputError

__all__ = ["SimulatedTable", "simulate", "SHAPES", "KINDS", "UNITS"]

#: The noise shapes, in the order their default weights are listed, with those weights.
SHAPES = {"lognormal": 0.45, "bimodal": 0.2, "heavy_tail": 0.25, "quantised": 0.1}
#: The kinds of true effect of the default mix, with their weights.
KINDS = {"same": 0.55, "tiny": 0.2, "faster": 0.15, "slower": 0.1}
#: Accepted ``unit`` values, with the factor from seconds to that unit.
UNITS = {"s": 1.0, "ms": 1e3, "us": 1e6, "ns": 1e9}

_BIMODAL_P = 0.3  # share of runs in the upper mode
_BIMODAL_GAP = 4.0  # the upper mode sits at 1 + 4 sigma
_PARETO_SHAPE = 3.0  # tail index of the heavy right tail (numpy's pareto: Lomax)
_PAIRED_SCALE = 0.5  # the shared run factor's log-sd, in units of sigma
_TINY = 0.01  # "tiny" effects: the candidate within 1 % of the baseline
_CLEAR = (0.03, 0.5)  # "faster"/"slower": 3 % to 50 % change
_FLAT_RUNS = 31  # runs per benchmark and variant of a flat table when `runs` is not given
#: Gauss-Laguerre nodes and weights for E g(L), L ~ Lomax(3): L = exp(t / 3) - 1, t ~ Exp(1).
_LAGUERRE = np.polynomial.laguerre.laggauss(80)


class SimulatedTable(NamedTuple):
    """What `simulate` returns; unpacks as ``table, truth``.

    Attributes
    ----------
    table : pyarrow.Table
        One row per measurement: ``benchmark`` and ``variant`` (dictionary<int32, string>),
        ``run`` (int32), ``value`` (float64), ``unit`` (dictionary<int32, string>; absent when
        ``unit=None``). Rows are ordered by variant, then benchmark, then run. A nested design
        adds, after ``run``, ``round`` (with `rounds`), ``process`` and ``iteration`` (int32,
        from 0), and ``run`` is the flat index ``process * iterations + iteration``.
    truth : pyarrow.Table
        One row per benchmark: ``benchmark`` (string), ``true_speedup`` (float64, baseline time
        / candidate time: above 1 when the candidate is faster), ``kind`` (``same``, ``tiny``,
        ``faster``, ``slower``), ``shape`` (the noise shape), ``sigma`` (float64, the noise
        scale) and ``base`` (float64, the baseline's typical time in ``unit``). A nested design
        adds ``process_sd`` (``t_b``, the log-sd of the process effect) and ``iteration_sd``
        (``sqrt(v_b)``, the log-sd of the iteration noise).
    """

    table: pa.Table
    truth: pa.Table


def _variants(value) -> list[str]:
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        n = check_whole_number(value, "variants", 2)
        return ["baseline", "candidate"] + [f"variant_{v}" for v in range(2, n)]
    if isinstance(value, str) or not hasattr(value, "__iter__"):
        raise InputError(f"variants must be a sequence of at least two names or a count >= 2, got {value!r}")
    names = list(value)
    if len(names) < 2:
        raise InputError(f"variants needs at least two names (baseline, candidate), got {names!r}")
    if not all(isinstance(v, str) and v for v in names):
        raise InputError(f"variants must be non-empty strings, got {names!r}")
    if len(set(names)) != len(names):
        raise InputError(f"variants must be distinct, got {names!r}")
    return names


def _shape_weights(value) -> np.ndarray:
    known = list(SHAPES)
    if isinstance(value, str):
        value = (value,)
    if isinstance(value, Mapping):
        weights = np.zeros(len(known))
        for name, w in value.items():
            if name not in SHAPES:
                raise InputError(f"shapes: unknown shape {name!r}; the shapes are {known}")
            try:
                w = float(w)
            except (TypeError, ValueError):
                raise InputError(f"shapes: the weight of {name!r} must be a number, got {w!r}") from None
            if not math.isfinite(w) or w < 0:
                raise InputError(f"shapes: the weight of {name!r} must be finite and >= 0, got {w!r}")
            weights[known.index(name)] = w
    else:
        try:
            names = list(value)
        except TypeError:
            raise InputError(f"shapes must be shape names or a mapping shape -> weight, got {value!r}") from None
        weights = np.zeros(len(known))
        for name in names:
            if name not in SHAPES:
                raise InputError(f"shapes: unknown shape {name!r}; the shapes are {known}")
            weights[known.index(name)] = SHAPES[name]
    if weights.sum() <= 0:
        raise InputError(f"shapes: give at least one shape with a positive weight, got {value!r}")
    return weights / weights.sum()


def _range(name: str, value, example: str) -> tuple[float, float]:
    """A positive (low, high) range from a number or a pair."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        low = high = float(value)
    else:
        try:
            low, high = (float(v) for v in value)
        except (TypeError, ValueError):
            raise InputError(f"{name} must be a positive number or a (low, high) pair like {example}, "
                         f"got {value!r}") from None
    if not (math.isfinite(low) and math.isfinite(high)) or low <= 0 or high < low:
        raise InputError(f"{name} must be positive and finite with low <= high, got {value!r}")
    return low, high


def _log_uniform(rng: np.random.Generator, low: float, high: float, size: int) -> np.ndarray:
    """Log-uniform draws in [low, high]; a degenerate range still consumes its draws."""
    u = rng.uniform(np.log(low), np.log(high), size)
    return np.full(size, low) if low == high else np.exp(u)


def _speedups(value, benchmarks: int) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"effects must be None, a true speedup or one per benchmark, got {value!r}") from None
    if arr.ndim > 1 or (arr.ndim == 1 and arr.size != benchmarks):
        raise InputError(f"effects must hold one true speedup per benchmark ({benchmarks}), "
                     f"got shape {arr.shape}")
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise InputError("effects: true speedups must be positive and finite (1 = unchanged, "
                     "2 = the candidate twice as fast)")
    return np.broadcast_to(arr, (benchmarks,))


class _Design(NamedTuple):
    """A nested design: `processes` per (benchmark, variant), `iterations` each; `rounds` is
    True when every process is a round shared by the variants (then processes = rounds)."""

    processes: int
    iterations: int
    rounds: bool
    icc: float
    drift: float


def _design(runs, processes, iterations, icc, rounds, drift) -> tuple[int, _Design | None]:
    """The runs per (benchmark, variant) and the nested design (None: a flat table)."""
    icc = check_real(icc, "icc", low=0.0, high=1.0, high_open=True)
    drift = check_real(drift, "drift", low=0.0)
    if processes is None and rounds is None:
        for name, given in (("iterations", iterations is not None), ("icc", icc != 0),
                            ("drift", drift != 0)):
            if given:
                raise InputError(f"{name} describes a nested design: give processes= (processes x "
                             f"iterations) or rounds= (interleaved rounds) with it")
        return (_FLAT_RUNS if runs is None else check_whole_number(runs, "runs", 1)), None
    if rounds is not None:
        count = check_whole_number(rounds, "rounds", 1)
        if processes is not None and check_whole_number(processes, "processes", 1) != count:
            raise InputError(f"processes: with rounds= each variant runs one process a round, so "
                         f"processes must be left out or equal rounds ({count}), got {processes!r}")
    else:
        count = check_whole_number(processes, "processes", 1)
        if drift != 0:
            raise InputError("drift: a drift moves both variants together round by round; give "
                         "rounds= (interleaved rounds) with it")
    per_process = 1 if iterations is None else check_whole_number(iterations, "iterations", 1)
    total = count * per_process
    if runs is not None and check_whole_number(runs, "runs", 1) != total:
        raise InputError(f"runs: a nested design has processes x iterations = {count} x "
                     f"{per_process} = {total} runs a variant; leave runs out, got {runs!r}")
    return total, _Design(count, per_process, rounds is not None, icc, drift)


def _iteration_log_variance(shape: np.ndarray, sigma: np.ndarray) -> np.ndarray:
    """Variance of log(exp(sigma z) S) for each benchmark's shape code and noise scale: sigma^2
    plus the variance of the shape's log factor, in closed form for ``bimodal``, by
    Gauss-Laguerre quadrature for ``heavy_tail``, and Sheppard's correction sigma^2 / 12 for
    ``quantised`` (its rounding to a step of sigma, relative; approximate)."""
    variance = sigma ** 2
    bimodal, tail, quantised = shape == 1, shape == 2, shape == 3
    variance[bimodal] += (_BIMODAL_P * (1 - _BIMODAL_P)
                          * np.log1p(_BIMODAL_GAP * sigma[bimodal]) ** 2)
    nodes, weights = _LAGUERRE
    lomax = np.expm1(nodes / _PARETO_SHAPE)
    log_factor = np.log1p(sigma[tail, None] * lomax[None, :])
    mean = log_factor @ weights
    variance[tail] += (log_factor ** 2) @ weights - mean ** 2
    variance[quantised] += sigma[quantised] ** 2 / 12
    return variance


def _check_size(benchmarks: int, runs: int, variants: int, level_columns: int = 0) -> None:
    """Refuse, before drawing, a table that cannot fit in memory (`check_budget`).

    Per measurement: 8 bytes of value and 4 each of benchmark, variant, run and unit codes in the
    table (and of the `level_columns` of a nested design: process, iteration, round), 8 more for
    the concatenated values, and per (benchmark, run) about 48 bytes of the draws of one variant
    in flight (normal draws, the noise factor, the shape's draws).
    """
    cells = benchmarks * runs
    needed = (cells * variants * (8 + 4 * (4 + level_columns) + 8) + cells * 48
              + benchmarks * 64)
    check_budget("simulate", "benchmarks x runs", f"{benchmarks} x {runs}", bytes_needed=needed,
                 operations=cells * variants * 20,
                 detail=f"{cells * variants} measurements of {variants} variants",
                 remedy="reduce benchmarks or runs")


def simulate(
    benchmarks: int = 100,
    runs: int | None = None,
    *,
    variants: Sequence[str] | int = ("baseline", "candidate"),
    seed: int | np.random.Generator | None = 0,
    shapes: str | Sequence[str] | Mapping[str, float] = tuple(SHAPES),
    sigma: float | tuple[float, float] = (0.002, 0.08),
    base: float | tuple[float, float] = (1e-6, 10.0),
    effects: float | Sequence[float] | np.ndarray | None = None,
    paired: bool = False,
    unit: str | None = "s",
    processes: int | None = None,
    iterations: int | None = None,
    icc: float = 0.0,
    rounds: int | None = None,
    drift: float = 0.0,
) -> SimulatedTable:
    r"""Simulate a benchmark measurement table whose true effects are known.

    Every benchmark ``b`` gets a typical time ``m_b`` (log-uniform in `base`), a noise scale
    ``sigma_b`` (log-uniform in `sigma`), a noise shape (drawn with the weights of `shapes`)
    and a true effect: the candidate's time is the baseline's divided by ``true_speedup_b``.
    Run ``r`` of variant ``v`` (0 = baseline, 1 = candidate, k = the k-th variant, whose
    speedup is ``true_speedup_b ** k``) is

    ``x = m_b * true_speedup_b ** -v * exp(sigma_b z) * S * P``,  z ~ N(0, 1),

    with ``S`` the shape's factor: 1 (``lognormal``); ``1 + 4 sigma_b`` with probability 0.3,
    else 1 (``bimodal``); ``1 + sigma_b L``, L ~ Lomax(3) (``heavy_tail``: outliers); for
    ``quantised``, ``S = 1`` and x is then rounded to a multiple of ``m_b true_speedup_b ** -v
    sigma_b`` (a coarse timer: ties). ``P`` is 1, or with ``paired=True`` a factor
    ``exp(sigma_b z' / 2)`` drawn once per (benchmark, run) and shared by every variant. Every
    variant is the baseline's distribution scaled by its effect, so the ratio of any location
    statistic (median, mean) of baseline over candidate tends to ``true_speedup`` as runs grow.

    **Nested designs.** With ``processes=P`` every (benchmark, variant) runs ``P`` processes of
    ``iterations=I`` values each (``P I`` runs), and the values of one process share a process
    effect ``U``: on the log scale

    ``log x = log(m_b true_speedup_b ** -v) + U + log(exp(w_b z) S)``,  ``U ~ N(0, t_b^2)``,

    where the iteration noise is the benchmark's shape at the scale ``w_b = sigma_b sqrt(1 -
    icc)`` (the quantised step is ``w_b`` too) and ``t_b^2 = icc / (1 - icc) v_b``, with ``v_b``
    the log-variance of that iteration noise: `icc` is then the intraclass correlation of the log
    values, the share of their variance between processes. For ``lognormal`` noise ``v_b = w_b^2``,
    so ``t_b^2 = icc sigma_b^2`` and the total log-variance stays ``sigma_b^2``; for the other
    shapes ``v_b`` adds the variance of their log factor (closed form for ``bimodal``, quadrature
    for ``heavy_tail``, Sheppard's ``w_b^2 / 12`` for ``quantised``, there approximate). With
    ``rounds=R`` each variant runs one fresh process a round (``P = R``), interleaved: round ``r``
    of the baseline and of the candidate share a drift ``D_r`` added to both on the log scale, a
    random walk ``D_0 = 0``, ``D_r = D_{r-1} + N(0, drift^2)``. The process effects and the drift
    come from a stream spawned from `seed`'s (``Generator.spawn``): the rest of the table is
    drawn as the flat table of ``P I`` runs, so with ``icc=0`` and no drift its values equal
    those of ``simulate(runs=P * I)`` with the same seed.

    Parameters
    ----------
    benchmarks : int, default 100
        Number of benchmarks, named ``bench_00000``, ``bench_00001``, ...
    runs : int or None, default None
        Runs per benchmark and variant (numbered 0 .. runs - 1): 31 when None. A nested design
        has ``processes x iterations`` runs; `runs` may then be left out, or must equal it.
    variants : sequence of str or int, default ("baseline", "candidate")
        Variant names (at least two, distinct): the first is the baseline, the second the
        candidate. An int n names them ``baseline``, ``candidate``, ``variant_2`` ...
    seed : int, numpy.random.Generator or None, default 0
        Seed of ``numpy.random.default_rng``; the same seed gives the same tables.
    shapes : str, sequence of str or mapping str -> float
        Noise shapes among ``lognormal``, ``bimodal``, ``heavy_tail``, ``quantised``. A sequence
        keeps the default weights (0.45, 0.2, 0.25, 0.1) of the shapes named, renormalised; a
        mapping gives the weights. The default is all four.
    sigma : float or (float, float), default (0.002, 0.08)
        Noise scale: a log-uniform range, or one value for every benchmark.
    base : float or (float, float), default (1e-6, 10.0)
        Typical baseline time in seconds: a log-uniform range (1 us to 10 s), or one value.
    effects : None, float or array of float, default None
        True speedups (baseline / candidate). None draws the default mix: 55 % ``same``
        (speedup 1), 20 % ``tiny`` (candidate time within +-1 %), 15 % ``faster`` (candidate
        time divided by 1.03 .. 1.5), 10 % ``slower`` (multiplied by 1.03 .. 1.5). A number
        applies to every benchmark, an array gives one per benchmark; their ``kind`` is then
        ``same`` (exactly 1), ``tiny`` (candidate time within 1 %), else ``faster``/``slower``.
        The noise does not depend on `effects`: the same seed gives the same noise draws.
    paired : bool, default False
        Share a per-run factor between the variants (runs interleaved on one machine), which
        makes the variants' runs correlated; ``run`` then pairs them.
    unit : {"s", "ms", "us", "ns"} or None, default "s"
        Unit of ``value`` (times are scaled to it) and content of the ``unit`` column; None
        leaves the column out (values in seconds).
    processes : int or None, default None
        Processes per (benchmark, variant): a nested design with columns ``process`` and
        ``iteration``. None: a flat table (unless `rounds` is given).
    iterations : int or None, default None
        Values per process (1 when None) of a nested design.
    icc : float in [0, 1), default 0.0
        Intraclass correlation of the log values within a process: the share of their variance
        between processes (see above). Needs `processes` or `rounds`.
    rounds : int or None, default None
        Interleaved rounds: each variant runs one process of `iterations` values a round, and
        both variants share round ``r``'s drift; adds the column ``round`` (``process`` equals
        it). `processes` may be left out, or must equal `rounds`.
    drift : float >= 0, default 0.0
        Standard deviation of each round's step of the random-walk drift, on the log scale
        (0.01: about 1 % a round). Needs `rounds`.

    Returns
    -------
    SimulatedTable
        ``.table`` (the measurements) and ``.truth`` (one row per benchmark); unpacks as
        ``table, truth``.

    Raises
    ------
    fastperf.InputError
        An argument out of range, named in the message.

    Examples
    --------
    >>> import fastperf
    >>> sim = fastperf.simulate(benchmarks=3, runs=5, seed=1)
    >>> sim.table.num_rows, sim.table.column_names
    (30, ['benchmark', 'variant', 'run', 'value', 'unit'])
    >>> sim.truth.column_names
    ['benchmark', 'true_speedup', 'kind', 'shape', 'sigma', 'base']
    >>> table, truth = fastperf.simulate(benchmarks=2, runs=101, sigma=0.001, effects=[1.0, 2.0],
    ...                                  shapes="lognormal")
    >>> result = fastperf.speedup_test(table, baseline="baseline", candidate="candidate")
    >>> [round(s, 2) for s in result.benchmarks.column("speedup_median").to_pylist()]
    [1.0, 2.0]
    >>> nested = fastperf.simulate(benchmarks=2, processes=20, iterations=3, icc=0.5, seed=1)
    >>> nested.table.num_rows, nested.table.column_names
    (240, ['benchmark', 'variant', 'run', 'process', 'iteration', 'value', 'unit'])
    >>> rounds = fastperf.simulate(benchmarks=2, rounds=10, iterations=5, drift=0.01, seed=1)
    >>> rounds.table.column_names
    ['benchmark', 'variant', 'run', 'round', 'process', 'iteration', 'value', 'unit']
    """
    n_bench = check_whole_number(benchmarks, "benchmarks", 1)
    n_runs, design = _design(runs, processes, iterations, icc, rounds, drift)
    names_v = _variants(variants)
    p_shape = _shape_weights(shapes)
    sigma_range = _range("sigma", sigma, "(0.002, 0.08)")
    base_range = _range("base", base, "(1e-6, 10.0)")
    speedups = None if effects is None else _speedups(effects, n_bench)
    check_choice(unit, "unit", [*UNITS, None])
    check_flag(paired, "paired")
    _check_size(n_bench, n_runs, len(names_v),
                0 if design is None else 2 + design.rounds)
    try:
        rng = np.random.default_rng(seed)
    except (TypeError, ValueError) as exc:
        raise InputError(f"seed must be an int, a numpy Generator or None, got {seed!r}: {exc}") from None

    B, R = n_bench, n_runs
    # the draws, in this order, whatever the arguments (so that a seed's noise stays the same)
    m = _log_uniform(rng, *base_range, B)
    shape = rng.choice(len(SHAPES), size=B, p=p_shape)
    sig = _log_uniform(rng, *sigma_range, B)
    kind = rng.choice(len(KINDS), size=B, p=list(KINDS.values()))
    effect = np.ones(B)  # candidate time / baseline time
    tiny, faster, slower = kind == 1, kind == 2, kind == 3
    effect[tiny] = 1 + rng.uniform(-_TINY, _TINY, tiny.sum())
    effect[faster] = 1 / (1 + rng.uniform(*_CLEAR, faster.sum()))
    effect[slower] = 1 + rng.uniform(*_CLEAR, slower.sum())
    if speedups is not None:
        effect = 1 / speedups
        kind = np.where(effect == 1, 0, np.where(np.abs(effect - 1) <= _TINY, 1,
                                                 np.where(effect < 1, 2, 3)))
    run_factor = (np.exp(rng.normal(0, 1, (B, R)) * sig[:, None] * _PAIRED_SCALE)
                  if paired else 1.0)
    # a nested design: the iteration noise's scale, and the process effects and drift as
    # factors (V, B, R), from a stream of their own
    noise = sig if design is None else sig * math.sqrt(1.0 - design.icc)
    levels = None if design is None else _level_factors(rng.spawn(1)[0], design, shape, noise,
                                                        len(names_v))

    bim, tail, quant = shape == 1, shape == 2, shape == 3
    values = []
    for v in range(len(names_v)):
        scale = m * (effect if v == 1 else (1.0 if v == 0 else effect ** v))
        z = rng.normal(0, 1, (B, R))
        x = np.exp(z * noise[:, None])
        x[bim] *= np.where(rng.random((bim.sum(), R)) < _BIMODAL_P, 1 + _BIMODAL_GAP * noise[bim, None], 1.0)
        x[tail] *= 1 + rng.pareto(_PARETO_SHAPE, (tail.sum(), R)) * noise[tail, None]
        if levels is not None:
            x = x * levels.factors[v]
        x = x * run_factor * scale[:, None]
        step = scale[quant, None] * noise[quant, None]
        x[quant] = np.round(x[quant] / step) * step
        values.append(x.ravel())

    factor = UNITS[unit] if unit is not None else 1.0
    value = np.concatenate(values)
    if factor != 1.0:
        value = value * factor
    names_b = np.char.add("bench_", np.char.zfill(np.arange(B).astype(str), 5))
    V = len(names_v)
    columns = {
        "benchmark": pa.DictionaryArray.from_arrays(
            pa.array(np.tile(np.repeat(np.arange(B, dtype=np.int32), R), V)), pa.array(names_b)),
        "variant": pa.DictionaryArray.from_arrays(
            pa.array(np.repeat(np.arange(V, dtype=np.int32), B * R)), pa.array(names_v)),
        "run": pa.array(np.tile(np.arange(R, dtype=np.int32), B * V)),
    }
    if design is not None:
        process = np.repeat(np.arange(design.processes, dtype=np.int32), design.iterations)
        if design.rounds:
            columns["round"] = pa.array(np.tile(process, B * V))
        columns["process"] = pa.array(np.tile(process, B * V))
        columns["iteration"] = pa.array(np.tile(np.arange(design.iterations, dtype=np.int32),
                                                B * V * design.processes))
    columns["value"] = pa.array(value)
    if unit is not None:
        columns["unit"] = pa.DictionaryArray.from_arrays(
            pa.array(np.zeros(V * B * R, dtype=np.int32)), pa.array([unit]))
    table = pa.table(columns)
    truth = pa.table({
        "benchmark": pa.array(names_b),
        "true_speedup": pa.array(1 / effect),
        "kind": pa.array(np.array(list(KINDS))[kind]),
        "shape": pa.array(np.array(list(SHAPES))[shape]),
        "sigma": pa.array(sig),
        "base": pa.array(m * factor),
    })
    if levels is not None:
        truth = truth.append_column("process_sd", pa.array(levels.process_sd)).append_column(
            "iteration_sd", pa.array(levels.iteration_sd))
    return SimulatedTable(table, truth)


class _LevelFactors(NamedTuple):
    factors: np.ndarray  # (variants, benchmarks, runs): exp(process effect + drift)
    process_sd: np.ndarray  # t_b, per benchmark
    iteration_sd: np.ndarray  # sqrt(v_b), per benchmark


def _level_factors(rng: np.random.Generator, design: _Design, shape: np.ndarray,
                   noise: np.ndarray, variants: int) -> _LevelFactors:
    """The multiplicative factors of a nested design, per (variant, benchmark, run): a process
    effect U ~ N(0, t_b^2), t_b^2 = icc / (1 - icc) v_b (one draw a process, every variant its
    own), and with rounds the random-walk drift D_r shared by the variants of round r. Drawn
    in this order from `rng` (the spawned stream), whatever the arguments."""
    B, P, iterations = noise.size, design.processes, design.iterations
    within = _iteration_log_variance(shape, noise)
    process_sd = np.sqrt(design.icc / (1.0 - design.icc) * within)
    log_factor = rng.normal(0, 1, (variants, B, P)) * process_sd[None, :, None]
    if design.rounds:
        steps = rng.normal(0, 1, (B, P - 1)) * design.drift
        walk = np.concatenate([np.zeros((B, 1)), np.cumsum(steps, axis=1)], axis=1)
        log_factor = log_factor + walk[None, :, :]
    factors = np.exp(np.repeat(log_factor, iterations, axis=2))
    return _LevelFactors(factors, process_sd, np.sqrt(within))
