"""Run diagnostics per group of processes: the warm-up split (MSER-5), and the statistics of the
steady runs (Tukey's fences, the timer's quantum, the coefficient of variation, the
Mann-Kendall trend and the OLS slope), batched over the groups of `fastperf.data.levels.Sequences`
(`fastperf.engine.diagnostics` turns them into p-values, flags and advice).

Input layout, every kernel: ``values`` (float64, no NaN), ``processes`` (CSR offsets into
`values`, one segment per process) and ``group_processes`` (CSR offsets into the processes, one
segment per group). A group is on the log scale when each of its values is > 0.
"""
import numpy as np

from fastperf.kernels.builds import group_kernel, njit, prange
from fastperf.kernels.order_statistics import smallest_gap


@njit(cache=True)
def all_positive(values, start, stop):
    """Whether every value of values[start:stop] is > 0 (True for an empty slice)."""
    for j in range(start, stop):
        if not values[j] > 0.0:
            return False
    return True


@njit(cache=True)
def on_scale(value, log_scale):
    """`value` on the group's scale: its log where `log_scale`, else itself."""
    return np.log(value) if log_scale else value


#: MSER averages the profile in batches of 5 positions from this many positions on (White 1997's
#: MSER-5, made for long simulation output), else reads it position by position (MSER): on a
#: short profile 5-position batches are few, and the minimum of MSER over them lands a batch or
#: more past a short transient (5 slow runs of 40 were taken for 20 in 3 of 5 groups).
MSER_BATCH_FROM = 100
#: MSER's truncation is then moved back over every last position of the proposed transient
#: that lies within this many standard deviations of the steady positions' mean: MSER's
#: minimum is noisy on short profiles and often lands past a short transient, taking steady
#: positions with it, which dilutes the test of the transient.
TRIM_BAND = 2.0


@njit(cache=True)
def mser_truncation(profile, length):
    """The MSER-5 truncation point of ``profile[:length]``, in positions.

    Parameters
    ----------
    profile : numpy.ndarray of float64
        The iteration profile (the mean value at each position).
    length : int
        Its positions.

    Returns
    -------
    int
        ``d * b``: b = 5 when `length` >= `MSER_BATCH_FROM`, else 1 (plain MSER); d in ``0..n_b // 2`` (the
        first half of the ``n_b = length // b`` batch means Z, a last partial batch left out),
        and at most ``n_b - 2`` (one batch left always scores 0)
        minimising ``MSER(d) = sum_{j >= d} (Z_j - mean(Z[d:]))^2 / (n_b - d)^2``, the first
        such d on ties; then moved back over each last position of ``profile[:d * b]`` within
        `TRIM_BAND` standard deviations (ddof 1) of the mean of ``profile[d * b:length]``.

    Notes
    -----
    White (1997), "An effective truncation heuristic for bias reduction in simulation output",
    Simulation 69(6), 323-334; White, Cobb & Spratt (2000), "A comparison of five steady-state
    truncation heuristics for simulation", Proc. Winter Simulation Conference. The sums over
    each suffix come from one backward pass of Welford's update.
    """
    batch = 5 if length >= MSER_BATCH_FROM else 1
    n_batches = length // batch
    if n_batches < 2:
        return 0
    means = np.empty(n_batches)
    for j in range(n_batches):
        total = 0.0
        for k in range(j * batch, (j + 1) * batch):
            total += profile[k]
        means[j] = total / batch
    limit = min(n_batches // 2, n_batches - 2)  # at least two batches left
    mean = 0.0
    spread = 0.0
    best = np.inf
    best_d = 0
    scores = np.empty(limit + 1)
    for j in range(n_batches - 1, -1, -1):  # Welford, backwards: the suffix Z[j:]
        count = n_batches - j
        delta = means[j] - mean
        mean += delta / count
        spread += delta * (means[j] - mean)
        if j <= limit:
            scores[j] = spread / (count * count)
    for d in range(limit + 1):
        if scores[d] < best:
            best = scores[d]
            best_d = d
    cut = best_d * batch
    if cut == 0:
        return 0
    steady_mean, steady_variance = mean_and_variance(profile[cut:length], length - cut)
    band = TRIM_BAND * np.sqrt(steady_variance)
    while cut > 0 and abs(profile[cut - 1] - steady_mean) <= band:
        cut -= 1
    return cut


@njit(cache=True)
def mean_and_variance(x, count):
    """Mean and variance (ddof=1; NaN below 2 values) of ``x[:count]``, two-pass."""
    if count == 0:
        return np.nan, np.nan
    total = 0.0
    for j in range(count):
        total += x[j]
    mean = total / count
    if count < 2:
        return mean, np.nan
    spread = 0.0
    for j in range(count):
        spread += (x[j] - mean) * (x[j] - mean)
    return mean, spread / (count - 1)


@group_kernel(min_rows=2_000_000, inputs=3)
def warmup_split(values, processes, group_processes):
    """The MSER-5 truncation of each group's iteration profile, and the moments of its test.

    Parameters
    ----------
    values : numpy.ndarray of float64
        The values, group by group, process by process, in measurement order (read only).
    processes : numpy.ndarray of int64
        CSR offsets of the processes into `values`.
    group_processes : numpy.ndarray of int64
        CSR offsets of each group's processes.

    Returns
    -------
    truncation : numpy.ndarray of int64
        Per group, d: the positions of each process in the proposed transient (`mser_truncation`
        of the profile: at each position, the mean over the processes that reach it of their
        value there, on the group's scale).
    log_scale : numpy.ndarray of bool
        Per group, whether every value is > 0 (the log scale).
    moments : numpy.ndarray of float64, shape (groups, 6)
        Per group, with one process (flat data): the count, mean and variance (ddof=1) of the
        first d values, then of the rest. With several: the count, mean and variance of the
        per-process differences (mean of the first d values minus mean of the rest, over the
        processes with values on both sides), that count again, the mean over those processes
        of their steady means, and NaN. All NaN (counts 0) where d = 0.
    """
    n_groups = group_processes.shape[0] - 1
    truncation = np.zeros(n_groups, dtype=np.int64)
    log_scale = np.zeros(n_groups, dtype=np.bool_)
    moments = np.full((n_groups, 6), np.nan)
    for g in prange(n_groups):
        first, last = group_processes[g], group_processes[g + 1]
        start, stop = processes[first], processes[last]
        log = all_positive(values, start, stop)
        log_scale[g] = log
        moments[g, 0] = 0.0
        moments[g, 3] = 0.0
        longest = 0
        for p in range(first, last):
            longest = max(longest, processes[p + 1] - processes[p])
        if longest < 2:
            continue
        sums = np.zeros(longest)
        counts = np.zeros(longest)
        for p in range(first, last):
            for j in range(processes[p], processes[p + 1]):
                sums[j - processes[p]] += on_scale(values[j], log)
                counts[j - processes[p]] += 1.0
        for k in range(longest):
            sums[k] /= counts[k]
        d = mser_truncation(sums, longest)
        truncation[g] = d
        if d == 0:
            continue
        if last - first == 1:  # one sequence of runs: the first d against the rest
            x = np.empty(stop - start)
            for j in range(start, stop):
                x[j - start] = on_scale(values[j], log)
            mean, var = mean_and_variance(x, d)
            moments[g, 0], moments[g, 1], moments[g, 2] = d, mean, var
            mean, var = mean_and_variance(x[d:], stop - start - d)
            moments[g, 3], moments[g, 4], moments[g, 5] = stop - start - d, mean, var
            continue
        differences = np.empty(last - first)
        steady_total = 0.0
        used = 0
        for p in range(first, last):
            begin, end = processes[p], processes[p + 1]
            if end - begin <= d:
                continue
            transient = 0.0
            for j in range(begin, begin + d):
                transient += on_scale(values[j], log)
            steady = 0.0
            for j in range(begin + d, end):
                steady += on_scale(values[j], log)
            steady /= end - begin - d
            differences[used] = transient / d - steady
            steady_total += steady
            used += 1
        mean, var = mean_and_variance(differences, used)
        moments[g, 0], moments[g, 1], moments[g, 2] = used, mean, var
        moments[g, 3] = used
        moments[g, 4] = steady_total / used if used > 0 else np.nan
    return truncation, log_scale, moments


@njit(cache=True)
def linear_quantile(sorted_x, count, q):
    """The q-quantile of ``sorted_x[:count]`` by linear interpolation (numpy's default method,
    its two-sided lerp: exact at both ends)."""
    position = (count - 1) * q
    low = int(np.floor(position))
    high = min(low + 1, count - 1)
    t = position - low
    a, b = sorted_x[low], sorted_x[high]
    if t >= 0.5:
        return b - (b - a) * (1.0 - t)
    return a + (b - a) * t


@njit(cache=True)
def merge_count(y, scratch, low, middle, high):
    """Merge the sorted runs y[low:middle] and y[middle:high] in place; the pairs (i < j) of
    the two runs with y_i > y_j (strictly) that the merge passes over."""
    for k in range(low, high):
        scratch[k] = y[k]
    i, j, k = low, middle, low
    inversions = 0
    while i < middle and j < high:
        if scratch[i] <= scratch[j]:
            y[k] = scratch[i]
            i += 1
        else:
            y[k] = scratch[j]
            inversions += middle - i
            j += 1
        k += 1
    while i < middle:
        y[k] = scratch[i]
        i += 1
        k += 1
    while j < high:
        y[k] = scratch[j]
        j += 1
        k += 1
    return inversions


@njit(cache=True)
def mann_kendall(y, count):
    """Mann-Kendall S of ``y[:count]`` in its order, and its variance under no trend with ties.

    Returns
    -------
    s : float
        Concordant minus discordant pairs of (index, y): sum over i < j of sign(y_j - y_i).
    variance : float
        ``(n (n - 1) (2n + 5) - sum_t t (t - 1) (2t + 5)) / 18`` over the tie groups t of y.

    Notes
    -----
    Mann (1945), Kendall (1975): O(n log n) by a bottom-up merge sort counting the discordant
    pairs (Knight 1966, "A computer method for calculating Kendall's tau with ungrouped data",
    JASA 61, 436-439); tied pairs are neither; the tie groups read off the sorted values.
    """
    x = y[:count].copy()
    scratch = np.empty(count)
    discordant = 0
    width = 1
    while width < count:
        for low in range(0, count - width, 2 * width):
            discordant += merge_count(x, scratch, low, low + width, min(low + 2 * width, count))
        width *= 2
    tied = 0
    tie_term = 0.0
    run = 1
    for k in range(1, count + 1):
        if k < count and x[k] == x[k - 1]:
            run += 1
            continue
        tied += run * (run - 1) // 2
        tie_term += run * (run - 1.0) * (2.0 * run + 5.0)
        run = 1
    pairs = count * (count - 1) // 2
    concordant = pairs - discordant - tied
    n = float(count)
    return float(concordant - discordant), (n * (n - 1.0) * (2.0 * n + 5.0) - tie_term) / 18.0


@njit(cache=True)
def ols_slope(y, count):
    """The least-squares slope of ``y[:count]`` on its index 0, 1, ... (NaN below 2 values)."""
    if count < 2:
        return np.nan
    centre = (count - 1) / 2.0
    mean = 0.0
    for j in range(count):
        mean += y[j]
    mean /= count
    cross = 0.0
    square = 0.0
    for j in range(count):
        cross += (j - centre) * (y[j] - mean)
        square += (j - centre) * (j - centre)
    return cross / square


#: The columns of `steady_statistics`' output, in order.
STEADY_COLUMNS = ("n", "q1", "q3", "mild", "severe", "quantum", "distinct", "median", "mean",
                  "sd", "trend_units", "trend_s", "trend_variance", "slope")


@group_kernel(min_rows=1_000_000, inputs=7)
def steady_statistics(scaled, processes, group_processes, truncation, sorted_raw,
                      sorted_scaled, steady_offsets):
    """The statistics of each group's steady values (each process less its first
    ``truncation[g]`` values).

    Parameters
    ----------
    scaled : numpy.ndarray of float64
        The values on their group's scale (logs, or the values), laid out as `warmup_split`'s
        `values` (read only, as every argument).
    processes, group_processes
        As `warmup_split`.
    truncation : numpy.ndarray of int64
        Per group, the values of each process left out (0: none).
    sorted_raw, sorted_scaled : numpy.ndarray of float64
        Each group's steady values sorted ascending, as they are and on the group's scale, at
        ``steady_offsets[g]:steady_offsets[g + 1]``.
    steady_offsets : numpy.ndarray of int64
        CSR offsets of the steady values per group.

    Returns
    -------
    numpy.ndarray of float64, shape (groups, len(STEADY_COLUMNS))
        Per group: n (steady values); q1, q3 (linear-interpolation quartiles on the scale);
        mild, severe (values strictly beyond Tukey's 1.5 IQR fence but within the 3 IQR one,
        and beyond the 3 IQR one; 0 where the IQR is 0); quantum (the smallest positive gap
        between distinct raw values; NaN with fewer than two distinct); distinct (distinct raw
        values); median, mean, sd (raw values, ddof=1); trend_units (the sequence the trend is
        read on: the steady runs in order with one process, else the steady means on the scale
        of the processes with steady values, in order), trend_s, trend_variance
        (`mann_kendall` of it), slope (`ols_slope` of it); NaN where undefined.
    """
    n_groups = group_processes.shape[0] - 1
    stats = np.full((n_groups, 14), np.nan)
    for g in prange(n_groups):
        first, last = group_processes[g], group_processes[g + 1]
        d = truncation[g]
        base = steady_offsets[g]
        count = steady_offsets[g + 1] - base
        stats[g, 0] = count
        trend = np.empty(max(count, last - first))
        units = 0
        for p in range(first, last):
            begin = processes[p] + d
            end = processes[p + 1]
            if end <= begin:
                continue
            if last - first == 1:
                for j in range(begin, end):
                    trend[units] = scaled[j]
                    units += 1
                continue
            total = 0.0
            for j in range(begin, end):
                total += scaled[j]
            trend[units] = total / (end - begin)
            units += 1
        stats[g, 10] = units
        if units >= 2:
            s, variance = mann_kendall(trend, units)
            stats[g, 11], stats[g, 12] = s, variance
            stats[g, 13] = ols_slope(trend, units)
        if count == 0:
            continue
        raw = sorted_raw[base:base + count]
        # the moments of the values over their largest magnitude: no overflow near 1e308
        scale = max(abs(raw[0]), abs(raw[count - 1]))
        if scale > 0 and np.isfinite(scale):
            mean, var = mean_and_variance(raw / scale, count)
            stats[g, 8], stats[g, 9] = mean * scale, np.sqrt(var) * scale
        else:
            mean, var = mean_and_variance(raw, count)
            stats[g, 8], stats[g, 9] = mean, np.sqrt(var)
        stats[g, 7] = linear_quantile(raw, count, 0.5)
        distinct = 1
        quantum = np.inf
        for j in range(1, count):
            if raw[j] != raw[j - 1]:
                distinct += 1
                quantum = min(quantum, raw[j] - raw[j - 1])
        stats[g, 6] = distinct
        stats[g, 5] = quantum if distinct > 1 else np.nan
        x = sorted_scaled[base:base + count]
        q1 = linear_quantile(x, count, 0.25)
        q3 = linear_quantile(x, count, 0.75)
        stats[g, 1], stats[g, 2] = q1, q3
        iqr = q3 - q1
        mild = 0
        severe = 0
        if iqr > 0:
            for j in range(count):
                v = x[j]
                if v < q1 - 3.0 * iqr or v > q3 + 3.0 * iqr:
                    severe += 1
                elif v < q1 - 1.5 * iqr or v > q3 + 1.5 * iqr:
                    mild += 1
        stats[g, 3], stats[g, 4] = mild, severe
    return stats


@group_kernel(min_rows=4_000_000, inputs=2)
def spread_ties(values, offsets):
    """Each segment's sorted values with every run of t values tied at v spread over one
    quantum q: the i-th becomes v + q ((i + 1/2) / t - 1/2), q the segment's smallest positive
    gap between distinct values (unchanged where the segment has no such gap).

    Parameters
    ----------
    values : numpy.ndarray of float64
        CSR segments, each sorted ascending (no NaN).
    offsets : numpy.ndarray of int64
        The segments' offsets.

    Returns
    -------
    numpy.ndarray of float64
        The spread values (a copy).

    Notes
    -----
    `fastperf.engine.diagnostics.tie_spread` gives the reason (the dip's null table assumes
    continuous values). One pass for the quantum, one for the runs of ties, per segment.
    """
    out = values.copy()
    for g in prange(offsets.shape[0] - 1):
        start, stop = offsets[g], offsets[g + 1]
        quantum = smallest_gap(values, start, stop)
        if not np.isfinite(quantum):
            continue
        i = start
        while i < stop:
            j = i + 1
            while j < stop and values[j] == values[i]:
                j += 1
            length = j - i
            if length > 1:
                for k in range(length):
                    out[i + k] = values[i] + quantum * ((k + 0.5) / length - 0.5)
            i = j
    return out
