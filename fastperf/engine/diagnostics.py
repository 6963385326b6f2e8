"""Run diagnostics: is a measurement any good? Warm-up, outliers, modes, drift, timer limits.

Every function takes `fastperf.data.levels.Sequences` (each (keys, variant) group's values in
measurement order, cut into processes) and gives one entry per group, batched over every group
by the kernels of `fastperf.kernels.diagnostics` (no Python loop over groups). A group is read
on the log scale when each of its values is > 0, else on the values themselves (the column
``scale``). docs/check.md gives each diagnostic's formula, source and threshold:

- **warmup** (`find_warmup`): MSER-5 (White 1997; White, Cobb & Spratt 2000) on the group's
  iteration profile (the mean at each iteration position over its processes; flat data: the
  runs in order) proposes a truncation d, moved back over steady positions; the transient is
  then tested against the steady
  state, by a one-sample t-test over the processes of their (mean of the first d) - (mean of
  the rest), or, with one sequence of runs, by Welch's t-test of the first d runs against the
  rest (Student's pooled test when d = 1, the prediction test of one value).
- Every other diagnostic reads the steady values (`steady_mask`: each process less a found
  transient):
  **outliers**: Tukey's fences (Tukey 1977) on the scale, criterion's classes: mild beyond
  1.5 IQR, severe beyond 3 IQR (quartiles by linear interpolation), from `MIN_FENCE_VALUES`
  values on;
  **bimodal**: Hartigan & Hartigan's (1985) dip test of the sorted values on the scale, each
  run of ties spread over one quantum (`fastperf.kernels.diagnostics.spread_ties`; `fastperf.engine.dip`);
  **drift**: the Mann-Kendall trend test (Mann 1945; Kendall 1975) of the steady runs in order,
  or of the processes' steady means in order, with the tie-corrected variance and the normal
  approximation with a continuity correction of 1 (``z = (S - sign(S)) / sqrt(Var S)``), and
  ``drift_per_10`` = exp(10 b) - 1 for the OLS slope b of the same sequence on its index (per
  10 runs, or per 10 processes in a group with several; on the linear scale 10 b / mean);
  **resolution**: the timer's quantum (the smallest positive gap between distinct raw values)
  over the median, and the share of tied values (the flag needs ties, or every value equal);
  **noisy**: the coefficient of variation of the
  raw values (pyperf check); **few runs**: fewer independent units than ``min_units``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fastperf.data.arrays import Samples
from fastperf.data.levels import Sequences
from fastperf.engine.dip import DIP_PROBABILITIES, DIP_QUANTILES, DIP_SIZES, MIN_N
from fastperf.engine.parametric import t_from_moments, t_pvalue
from fastperf.engine.sorting import sort_rows, sort_samples
from fastperf.engine.pvalues import normal_pvalue
from fastperf.kernels.diagnostics import (STEADY_COLUMNS, steady_rows, steady_statistics,
                                          warmup_split)
from fastperf.kernels.dip import OK, STATUS_MESSAGES

__all__ = ["FLAGS", "FLAG_TEXTS", "Thresholds", "Warmup", "Diagnostics", "find_warmup",
           "steady_mask", "diagnose", "flag_bits", "flag_text", "unit_counts",
           "MIN_FENCE_VALUES"]

#: The flags, in the order they are listed wherever several are named.
FLAGS: tuple[str, ...] = ("warmup", "outliers", "bimodal", "drift", "resolution", "noisy",
                          "few runs")

#: The statuses of `Warmup.status` where no p-value was computed for a proposed transient.
NO_WARMUP_TEST = {
    "flat": "warm-up not tested: fewer than 2 runs after the transient",
    "nested": "warm-up not tested: fewer than 2 processes with values after the transient",
}
#: The fewest steady values Tukey's fences classify: with fewer, the sample quartiles are too
#: unsteady (clean log-normal groups get a "severe" outlier in 12 % of groups of 5 values, 4-5 %
#: of groups of 10, 3-4 % of groups of 12).
MIN_FENCE_VALUES = 12
#: The fewest values of a dip test (the smallest its null table covers).
DIP_MIN_VALUES = MIN_N
#: `sorted_steady_values` sorts the groups as the padded rows of one rectangle while its size is
#: at most this many times the values.
MAX_PADDING = 2
#: The fewest runs or processes of a trend test.
TREND_MIN_UNITS = 3
#: The `scale` column's names, indexed by whether the group is on the log scale.
SCALE_NAMES = np.array(["linear", "log"], dtype=object)


@dataclass(frozen=True)
class Thresholds:
    """The thresholds at which each flag is raised (docs/check.md gives their sources and
    measured error rates).

    Attributes
    ----------
    warmup_alpha : float
        Level of the test of the transient against the steady state (0.01: clean log-normal
        data raise the flag in at most 2.5 % of groups at flat 30 runs, 10 processes x 30
        iterations and 20 x 5, a 10-iteration transient at +20 % is found in at least 97 %:
        docs/check.md).
    bimodal_alpha : float
        Level of the dip test.
    drift_alpha : float
        Level of the Mann-Kendall trend test.
    noisy_cv : float
        Coefficient of variation above which a group is ``noisy`` (pyperf check: 10 %).
    resolution : float
        The timer's quantum, as a fraction of the median, above which a group is
        ``resolution``-limited.
    min_units : int
        Fewer independent units (processes, else runs) than this: ``few runs``.
    """

    warmup_alpha: float = 0.01
    bimodal_alpha: float = 0.01
    drift_alpha: float = 0.01
    noisy_cv: float = 0.10
    resolution: float = 0.01
    min_units: int = 5


@dataclass(frozen=True)
class Warmup:
    """The warm-up found in each group.

    Attributes
    ----------
    iterations : numpy.ndarray of int64
        Per group, the iterations of each process in the transient: the 0-based index of the
        first steady iteration (0: no transient).
    change : numpy.ndarray of float64
        Per group, exp(mean log value of the transient - mean log value of the steady state) - 1
        (0.0 where no transient was proposed). With processes, the mean of the per-process
        differences; on the linear scale (a value <= 0 in the group) that mean difference over
        the steady mean's magnitude.
    pvalue : numpy.ndarray of float64
        Per group, the p-value of the transient against the steady state (1.0 where none was
        proposed; NaN where one was proposed but could not be tested, `status` says why).
    found : numpy.ndarray of bool
        Per group, whether a transient was found (``iterations > 0`` and ``pvalue < alpha``).
    log_scale : numpy.ndarray of bool or None
        Per group, whether it was read on the log scale (every value > 0).
    status : numpy.ndarray of str or None
        Per group, "ok" or why the proposed transient was not tested.
    """

    iterations: np.ndarray
    change: np.ndarray
    pvalue: np.ndarray
    found: np.ndarray
    log_scale: np.ndarray | None = None
    status: np.ndarray | None = None

    @property
    def dropped(self) -> np.ndarray:
        """Per group, the iterations of each process that a found transient takes (0 where none
        was found).

        Returns
        -------
        numpy.ndarray of int64
            ``iterations`` where ``found``, else 0.

        Notes
        -----
        Bookkeeping: no formula.
        """
        return np.where(self.found, self.iterations, 0).astype(np.int64)


@dataclass(frozen=True)
class Diagnostics:
    """The diagnostics of every group.

    Attributes
    ----------
    columns : dict of str -> numpy.ndarray
        Per group, in output order, the statistics behind the flags.
    flags : numpy.ndarray of bool, shape (groups, len(FLAGS))
        Which flags each group raises.
    advice : list of str
        Per group, one line of advice per raised flag, joined by "; " ("" when none).
    status : numpy.ndarray of object (str)
        Per group, "ok" or why a statistic is missing.
    warmup : Warmup
        The transient `find_warmup` found in each group (every other statistic reads the values
        after it).
    """

    columns: dict
    flags: np.ndarray
    advice: list
    status: np.ndarray
    warmup: Warmup

    def flag_text(self) -> list[str]:
        """Per group, the names of its flags in `FLAGS` order joined by ", " ("" when none).

        Returns
        -------
        list of str
            `flag_text` of `flag_bits` of `flags`.

        Notes
        -----
        A rendering: no formula.
        """
        return flag_text(flag_bits(self.flags)).tolist()


def flag_bits(flags: np.ndarray) -> np.ndarray:
    """Per row, the bit set of its flags.

    Parameters
    ----------
    flags : numpy.ndarray of bool, shape (rows, len(FLAGS))

    Returns
    -------
    numpy.ndarray of int64
        Bit ``i`` set where ``FLAGS[i]`` is raised.

    Notes
    -----
    Bookkeeping: no formula.
    """
    weights = np.left_shift(1, np.arange(len(FLAGS), dtype=np.int64))
    return np.asarray(flags, dtype=np.int64).reshape(-1, len(FLAGS)) @ weights


#: The text of every set of flags, indexed by its bits: "" for none, "warmup, bimodal", ...
FLAG_TEXTS = np.array([", ".join(f for i, f in enumerate(FLAGS) if bits >> i & 1)
                       for bits in range(1 << len(FLAGS))], dtype=object)


def flag_text(bits: np.ndarray) -> np.ndarray:
    """The names of the flags of each row, in `FLAGS` order joined by ", ".

    Parameters
    ----------
    bits : numpy.ndarray of int
        Per row, bit ``i`` set for ``FLAGS[i]`` (`flag_bits`).

    Returns
    -------
    numpy.ndarray of object (str)
        "" where no bit is set.

    Notes
    -----
    One text per possible set of flags (`FLAG_TEXTS`), picked by each row's bits.
    """
    return FLAG_TEXTS[np.asarray(bits, dtype=np.int64)]


def find_warmup(sequences: Sequences, alpha: float = Thresholds.warmup_alpha) -> Warmup:
    """The initial transient of each group's processes.

    Parameters
    ----------
    sequences : Sequences
        The groups' values in measurement order, cut into processes.
    alpha : float
        The level of the test of the proposed transient against the steady state.

    Returns
    -------
    Warmup

    Notes
    -----
    The iteration profile of a group is the mean value on its scale at each iteration
    position, over the processes that reach it (one sequence of runs: the runs themselves).
    MSER-5 (White 1997, "An effective truncation heuristic for bias reduction in simulation
    output", Simulation 69(6); White, Cobb & Spratt 2000) averages it in batches of 5 positions
    (of 1 below `fastperf.kernels.diagnostics.MSER_BATCH_FROM` positions) and takes the
    truncation d minimising ``sum_{j >= d} (Z_j - mean Z[d:])^2 / (n_b - d)^2`` over the first
    half of the batches (leaving at least two), then moves it back over each last position
    within `fastperf.kernels.diagnostics.TRIM_BAND` standard deviations of the steady
    positions' mean. Where d > 0 the transient is tested against the rest, two-sided: over the
    processes (the independent units, docs/nested.md), a one-sample t-test of each process's
    mean of its
    first d values minus the mean of the rest; with one sequence of runs, Welch's t-test of the
    first d runs against the rest (with d = 1, Student's pooled test: the first run against the
    prediction interval of the rest). A zero standard error gives p = 0 for a nonzero
    difference, else 1. Since MSER picks d to make the split look large, the test fires more
    often than its level on clean data: the default level was calibrated by simulation
    (docs/check.md gives the false-alarm and detection rates).
    """
    truncation, log_scale, moments = warmup_split(
        sequences.values, sequences.processes, sequences.group_processes,
        n_rows=sequences.values.shape[0])
    count_a, mean_a, var_a, count_b, mean_b, var_b = moments.T
    n_processes = np.diff(sequences.group_processes)
    flat = n_processes == 1
    proposed = truncation > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        difference = np.where(flat, mean_a - mean_b, mean_a)
        # the tests, on the groups with a proposed transient only (the others' p-values are
        # not read): the usual group has none
        tested = np.flatnonzero(proposed)
        n_a, m_a, v_a = count_a[tested], mean_a[tested], var_a[tested]
        n_b, m_b, v_b = count_b[tested], mean_b[tested], var_b[tested]
        # one sequence: Welch (d >= 2), Student's pooled test (d = 1)
        welch_t, welch_df, _, _, _ = t_from_moments(n_a, 0, m_a, v_a, n_b, 0, m_b, v_b,
                                                    equal_var=False)
        pooled_t, pooled_df, _, _, _ = t_from_moments(n_a, 0, m_a, np.where(n_a == 1, 0.0, v_a),
                                                      n_b, 0, m_b, v_b, equal_var=True)
        pooled = n_a == 1
        two_t = np.where(pooled, pooled_t, welch_t)
        two_df = np.where(pooled, pooled_df, welch_df)
        # processes: the one-sample t-test of the per-process differences
        one_t = m_a / np.sqrt(v_a / n_a)
        one_df = n_a - 1.0
        on_flat = flat[tested]
        t_tested = np.where(on_flat, two_t, one_t)
        t = np.full(proposed.shape[0], np.nan)
        t[tested] = t_tested
        pvalue = np.full(proposed.shape[0], np.nan)
        pvalue[tested] = t_pvalue(t_tested, np.where(on_flat, two_df, one_df), "two-sided")
    testable = proposed & np.where(flat, count_b >= 2, count_a >= 2)
    degenerate = testable & ~np.isfinite(t)  # a zero standard error
    pvalue = np.where(degenerate, np.where(difference != 0, 0.0, 1.0), pvalue)
    pvalue = np.where(testable, pvalue, np.where(proposed, np.nan, 1.0))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        change = np.where(log_scale, np.expm1(difference), difference / np.abs(mean_b))
    change = np.where(proposed, change, 0.0)
    found = testable & (pvalue < alpha)
    status = np.full(truncation.shape[0], "ok", dtype=object)
    status[proposed & ~testable & flat] = NO_WARMUP_TEST["flat"]
    status[proposed & ~testable & ~flat] = NO_WARMUP_TEST["nested"]
    return Warmup(truncation, change, pvalue, found, log_scale, status)


def steady_mask(sequences: Sequences, warmup: Warmup) -> np.ndarray:
    """A bool mask over ``sequences.values``: False for the values in a found transient (the
    first ``warmup.iterations[g]`` values of each process of a group where ``warmup.found``).

    Parameters
    ----------
    sequences : Sequences
    warmup : Warmup
        `find_warmup` of `sequences`.

    Returns
    -------
    numpy.ndarray of bool

    Notes
    -----
    CSR bookkeeping: no formula.
    """
    return kept_values(sequences, warmup.dropped)


def kept_values(sequences: Sequences, truncation: np.ndarray) -> np.ndarray:
    """A bool mask over ``sequences.values``: False for the first ``truncation[g]`` values of
    each process of group g.

    Notes
    -----
    CSR bookkeeping: no formula.
    """
    process_cut = np.repeat(truncation, np.diff(sequences.group_processes))
    sizes = np.diff(sequences.processes)
    position = (np.arange(sequences.values.shape[0], dtype=np.int64)
                - np.repeat(sequences.processes[:-1], sizes))
    return position >= np.repeat(process_cut, sizes)


def diagnose(sequences: Sequences, thresholds: Thresholds = Thresholds(),
             with_advice: bool = True) -> Diagnostics:
    """Every diagnostic of every group, and its flags and advice.

    Parameters
    ----------
    sequences : Sequences
        The groups' values in measurement order, cut into processes.
    thresholds : Thresholds
        The levels and limits of the flags.
    with_advice : bool
        Whether to write the advice lines (a Python loop over the flagged groups); without,
        ``advice`` is empty (the protocols' `flags` column needs only the flags).

    Returns
    -------
    Diagnostics
        ``columns``, in this order: ``scale`` ("log" or "linear"), ``n_steady`` (the values
        after a found transient, which every later statistic reads), ``warmup_iterations``,
        ``warmup_change``, ``warmup_pvalue``, ``outliers_mild``, ``outliers_severe``, ``dip``,
        ``dip_pvalue``, ``drift_statistic`` (Mann-Kendall S), ``drift_pvalue``,
        ``drift_per_10`` (per 10 runs; per 10 processes in a group with several), ``quantum``,
        ``quantum_share`` (quantum / |median|), ``tied_share``, ``cv``; then the flags, the
        advice, the status and the `Warmup` found. Tukey's fences classify groups of at least
        `MIN_FENCE_VALUES` steady values (fewer: no outlier is counted); the dip test reads
        the values with each run of ties spread over one quantum (`fastperf.kernels.diagnostics.spread_ties`); the
        ``resolution`` flag needs tied values (or every value equal).

    Notes
    -----
    The module docstring and docs/check.md give each formula and its source.
    """
    warmup = find_warmup(sequences, thresholds.warmup_alpha)
    truncation = warmup.dropped
    log_scale = warmup.log_scale
    n = np.diff(sequences.group_offsets)
    sorted_raw, sorted_starts, n_steady = sorted_steady_values(sequences, truncation)
    scaled = on_group_scale(sequences.values, log_scale, n)
    sorted_scaled = on_group_scale(sorted_raw, log_scale,
                                   np.diff(np.append(sorted_starts, sorted_raw.shape[0])))
    stats = steady_statistics(scaled, sequences.processes, sequences.group_processes,
                              truncation, sorted_raw, sorted_scaled, sorted_starts, n_steady,
                              DIP_SIZES, DIP_PROBABILITIES, DIP_QUANTILES,
                              n_rows=sequences.values.shape[0])
    steady = {name: stats[:, i] for i, name in enumerate(STEADY_COLUMNS)}
    n_groups = truncation.shape[0]
    units = unit_counts(sequences)
    linear = ~log_scale
    fenced = n_steady >= MIN_FENCE_VALUES

    dip, dip_pvalue, dip_reason = dip_columns(steady["dip"], steady["dip_pvalue"],
                                              steady["dip_status"], n_steady)

    s, variance, trend_units = steady["trend_s"], steady["trend_variance"], steady["trend_units"]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        z = (s - np.sign(s)) / np.sqrt(variance)
        z = np.where(s == 0, 0.0, z)
        drift_pvalue = normal_pvalue(z, "two-sided")
        drift_pvalue = np.where(variance > 0, drift_pvalue, 1.0)
        drift_pvalue = np.where(trend_units >= TREND_MIN_UNITS, drift_pvalue, np.nan)
        slope = steady["slope"]
        mean_zero = linear & (steady["mean"] == 0)
        drift_per_10 = np.where(log_scale, np.expm1(10.0 * slope),
                                10.0 * slope / np.abs(steady["mean"]))
        drift_per_10 = np.where((trend_units >= 2) & ~mean_zero, drift_per_10, np.nan)
        median = steady["median"]
        quantum = steady["quantum"]
        median_zero = median == 0
        quantum_share = np.where(median_zero, np.nan, quantum / np.abs(median))
        tied_share = np.where(n_steady > 0, 1.0 - steady["distinct"] / n_steady, np.nan)
        cv = np.where(steady["mean"] == 0, np.nan, steady["sd"] / np.abs(steady["mean"]))
    warmup_zero = linear & ~np.isfinite(warmup.change)
    warmup_change = np.where(warmup_zero, np.nan, warmup.change)
    all_equal = (n_steady > 1) & (steady["distinct"] == 1)
    with np.errstate(invalid="ignore"):
        flags = np.zeros((n_groups, len(FLAGS)), dtype=bool)
        flags[:, 0] = warmup.found
        flags[:, 1] = fenced & (steady["severe"] > 0)
        flags[:, 2] = dip_pvalue < thresholds.bimodal_alpha
        flags[:, 3] = drift_pvalue < thresholds.drift_alpha
        # a quantum is the timer's only where values tie; between untied values the smallest
        # gap is chance (it shrinks as 1/n^2)
        flags[:, 4] = ((tied_share > 0) & (quantum_share > thresholds.resolution)) | all_equal
        flags[:, 5] = cv > thresholds.noisy_cv
        flags[:, 6] = units < thresholds.min_units

    columns = {
        "scale": SCALE_NAMES[log_scale.astype(np.intp)],
        "n_steady": n_steady,
        "warmup_iterations": warmup.iterations,
        "warmup_change": warmup_change,
        "warmup_pvalue": warmup.pvalue,
        "outliers_mild": np.where(fenced, np.nan_to_num(steady["mild"]), 0).astype(np.int64),
        "outliers_severe": np.where(fenced, np.nan_to_num(steady["severe"]), 0).astype(np.int64),
        "dip": dip,
        "dip_pvalue": dip_pvalue,
        "drift_statistic": s,
        "drift_pvalue": drift_pvalue,
        "drift_per_10": drift_per_10,
        "quantum": quantum,
        "quantum_share": quantum_share,
        "tied_share": tied_share,
        "cv": cv,
    }
    present = n_steady > 0
    reasons = [
        (n == 0, "no values"),
        (warmup.status != "ok", None),
        (warmup_zero, "steady mean 0: no relative warm-up change"),
        (present & (n_steady < 2), "fewer than 2 values: no cv"),
        (present & (n_steady >= 2) & (steady["mean"] == 0), "mean 0: no cv"),
        (dip_reason != "", None),
        ((n > 0) & (trend_units < TREND_MIN_UNITS),
         ("fewer than 3 processes: no trend test" if sequences.nested
          else "fewer than 3 runs: no trend test")),
        ((trend_units >= 2) & mean_zero, "mean 0: no relative drift"),
        (present & (steady["distinct"] < 2), "fewer than 2 distinct values: no quantum"),
        (present & (steady["distinct"] >= 2) & median_zero, "median 0: no quantum share"),
    ]
    status = joined_reasons(reasons, [warmup.status, dip_reason], n_groups)
    # what no reason above explains: a statistic beyond the float range (a quantum between
    # -1e308 and 1e308); a relative change on the log scale may be inf (docs/check.md)
    unexplained = np.zeros(n_groups, dtype=bool)
    for name in ("warmup_pvalue", "dip", "dip_pvalue", "drift_pvalue", "quantum",
                 "quantum_share", "tied_share", "cv", "drift_statistic"):
        unexplained |= ~np.isfinite(columns[name].astype(np.float64))
    unexplained &= status == "ok"
    status[unexplained] = "a statistic beyond the float range (values near +-1e308)"
    advice = (advice_lines(flags, columns, steady, units, all_equal, sequences.nested,
                           np.diff(sequences.group_processes) > 1, thresholds)
              if with_advice else [])
    return Diagnostics(columns, flags, advice, status, warmup)


def unit_counts(sequences: Sequences) -> np.ndarray:
    """Per group, its independent units: the processes holding a value (nested), else its
    values (runs).

    Notes
    -----
    CSR bookkeeping: no formula.
    """
    if not sequences.nested:
        return np.diff(sequences.group_offsets).astype(np.int64)
    filled = np.diff(sequences.processes) > 0
    before = np.concatenate(([0], np.cumsum(filled))).astype(np.int64)
    return np.diff(before[sequences.group_processes]).astype(np.int64)


def sorted_steady_values(sequences: Sequences, truncation: np.ndarray
                         ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each group's steady values (each process less its first ``truncation[g]`` values, as
    `steady_mask` keeps them) sorted ascending.

    Parameters
    ----------
    sequences : Sequences
    truncation : numpy.ndarray of int64
        Per group, the values dropped from each process (`Warmup.dropped`).

    Returns
    -------
    sorted_values : numpy.ndarray of float64
        Group g's sorted steady values at ``starts[g]:starts[g] + counts[g]``.
    starts, counts : numpy.ndarray of int64

    Notes
    -----
    Sorting only: no formula. Where the groups' steady counts are close (their largest times
    the groups at most `MAX_PADDING` times the values), the groups are the rows of one
    rectangle (each row padded with +inf, which sorts last) sorted by numpy's vectorised sort
    (`fastperf.engine.sorting.sort_rows`: in parts on threads when large);
    else `fastperf.engine.sorting.sort_samples` of the steady values.
    """
    offsets = sequences.group_offsets
    n_groups = offsets.shape[0] - 1
    n_processes = np.diff(sequences.group_processes)
    if truncation.any():
        cut = np.minimum(np.diff(sequences.processes), np.repeat(truncation, n_processes))
        cut_before = np.concatenate(([0], np.cumsum(cut))).astype(np.int64)
        counts = np.diff(offsets) - np.diff(cut_before[sequences.group_processes])
    else:
        counts = np.diff(offsets)
    counts = counts.astype(np.int64)
    total = int(counts.sum())
    width = int(counts.max()) if n_groups else 0
    if n_groups == 0 or width == 0 or n_groups * width > MAX_PADDING * total:
        keep = kept_values(sequences, truncation)
        steady_offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
        values = sequences.values[keep] if truncation.any() else sequences.values
        return (np.ascontiguousarray(sort_samples(Samples(values, steady_offsets)).values),
                steady_offsets[:-1], counts)
    if not truncation.any() and total == n_groups * width and offsets[0] == 0:
        rows = sequences.values[:total].reshape(n_groups, width).copy()
    else:
        rows = steady_rows(sequences.values, sequences.processes, sequences.group_processes,
                           truncation, width)
    sort_rows(rows)
    return rows.reshape(-1), np.arange(n_groups, dtype=np.int64) * width, counts


def on_group_scale(values: np.ndarray, log_scale: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """`values` on their group's scale: numpy's log of those of a group on the log scale, the
    rest as they are.

    Parameters
    ----------
    values : numpy.ndarray of float64
        The groups' values, group after group.
    log_scale : numpy.ndarray of bool
        Per group, whether it is read on the log scale.
    sizes : numpy.ndarray of int64
        The values of each group (with a padded layout, its row's width).

    Returns
    -------
    numpy.ndarray of float64

    Notes
    -----
    No formula. One log pass where every group is on the log scale, `values` themselves where
    none is.
    """
    if log_scale.all():
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log(values)
    if not log_scale.any():
        return values
    on_log = np.repeat(log_scale, sizes)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(on_log, np.log(np.where(on_log, values, 1.0)), values)


def dip_columns(dip: np.ndarray, pvalue: np.ndarray, codes: np.ndarray, n_steady: np.ndarray):
    """The dip and its p-value per group, and why they are missing ("" where they are not, or
    the group has no values): NaN below `DIP_MIN_VALUES` values.

    Parameters
    ----------
    dip, pvalue : numpy.ndarray of float64
        Per group, the dip of its sorted steady values on its scale (ties spread) and its
        p-value (`steady_statistics`).
    codes : numpy.ndarray of float64
        Per group, the dip's status (an index into `fastperf.kernels.dip.STATUS_MESSAGES`).
    n_steady : numpy.ndarray of int64
        Each group's steady values.

    Returns
    -------
    dip, pvalue : numpy.ndarray of float64
    reason : numpy.ndarray of object (str)
    """
    enough = n_steady >= DIP_MIN_VALUES
    dip = np.where(enough, dip, np.nan)
    pvalue = np.where(enough, pvalue, np.nan)
    reason = np.full(enough.shape[0], "", dtype=object)  # no fixed-width string array
    reason[~enough] = f"fewer than {DIP_MIN_VALUES} values: no dip test"
    codes = codes.astype(np.int64)
    failed = enough & (codes != OK)
    reason[failed] = "no dip test: " + np.asarray(STATUS_MESSAGES, dtype=object)[codes[failed]]
    reason[n_steady == 0] = ""
    return dip, pvalue, reason


def joined_reasons(reasons, per_group, n_groups: int) -> np.ndarray:
    """Per group, "ok" or the reasons that hold joined by "; " (a reason None: the string of
    the next array of `per_group` at that group)."""
    parts = np.full(n_groups, "", dtype=object)
    arrays = iter(per_group)
    for condition, reason in reasons:
        text = next(arrays) if reason is None else reason
        if not condition.any():
            continue
        text = np.broadcast_to(np.asarray(text, dtype=object), (n_groups,))[condition]
        joiner = np.where(parts[condition] == "", "", "; ").astype(object)
        parts[condition] = parts[condition] + joiner + text
    return np.where(parts == "", "ok", parts).astype(object)


def advice_lines(flags: np.ndarray, columns: dict, steady: dict, units: np.ndarray,
                 all_equal: np.ndarray, nested: bool, several: np.ndarray,
                 thresholds: Thresholds) -> list[str]:
    """Per group, one line of advice per raised flag, in `FLAGS` order, joined by "; ".

    Parameters
    ----------
    flags : numpy.ndarray of bool, shape (groups, len(FLAGS))
    columns : dict
        `diagnose`'s output columns.
    steady : dict
        The kernel's statistics of the steady values (``median``).
    units : numpy.ndarray of int64
        `unit_counts`.
    all_equal : numpy.ndarray of bool
        Per group, whether every steady value is equal.
    nested : bool
        Whether the groups have processes.
    several : numpy.ndarray of bool
        Per group, whether it has several processes (the trend reads their means).
    thresholds : Thresholds

    Returns
    -------
    list of str
        "" for a group without flags.

    Notes
    -----
    A rendering, in pyperf check's spirit: per flag, a line written for each group raising it
    (Python string formatting), the lines joined by numpy's elementwise addition.
    """
    k = flags.shape[0]
    level = "processes" if nested else "runs"
    first = "iterations" if nested else "runs"

    def lines(flag: int, write, *columns_of) -> np.ndarray:
        """The advice of one flag: `write` of each raised group's values, "" elsewhere."""
        text = np.full(k, "", dtype=object)
        raised = np.flatnonzero(flags[:, flag])
        if raised.size:
            values = [np.asarray(c)[raised].tolist() for c in columns_of]
            text[raised] = [write(*row) for row in zip(*values)]
        return text

    parts = [
        lines(0, lambda d, change: f"the first {d} {first} are "
              + (f"{abs(change):.{1 if abs(change) < 0.1 else 0}%} "
                 f"{'slower' if change > 0 else 'faster'}" if np.isfinite(change)
                 else "unlike the rest")
              + ": drop them (warmup=\"auto\") or warm up longer",
              columns["warmup_iterations"], columns["warmup_change"]),
        lines(1, lambda severe: f"{severe} severe outlier{'s' if severe != 1 else ''}: look for "
              "interference (other processes, frequency scaling, GC)",
              columns["outliers_severe"]),
        lines(2, lambda p: f"bimodal (dip p={p:.2g}): look for two code paths or frequency "
              "states", columns["dip_pvalue"]),
        lines(3, lambda rate, by_process: f"drifts {rate:+.1%} per 10 "
              f"{'processes' if by_process else 'runs'}: interleave the variants (rounds) or "
              "pin the machine's state", columns["drift_per_10"], several),
        lines(4, lambda equal, median, quantum, share: (
            f"every value is {median:.6g}, below the timer's or counter's resolution: measure "
            "more iterations per value" if equal else
            f"values come in steps of {quantum:.3g}, {share:.1%} of the median: the timer or "
            "counter is too coarse for them, measure more iterations per value"),
            all_equal, steady["median"], columns["quantum"], columns["quantum_share"]),
        lines(5, lambda cv: f"std is {cv:.0%} of the mean: quiet the machine or take more "
              f"{level}", columns["cv"]),
        lines(6, lambda n: f"{n} {level if n != 1 else level[:-2 if nested else -1]}: "
              f"{'run' if nested else 'take'} at least {thresholds.min_units}", units),
    ]
    advice = parts[0]
    for part in parts[1:]:
        both = (advice != "") & (part != "")
        advice = np.where(both, advice + "; " + part, advice + part)
    return advice.tolist()
