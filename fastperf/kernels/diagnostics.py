"""Run diagnostics per group of processes: the warm-up split (MSER-5), and the statistics of the
steady runs (Tukey's fences, the timer's quantum, the coefficient of variation, the
Mann-Kendall trend and the OLS slope), batched over the groups of `fastperf.data.levels.Sequences`
(`fastperf.engine.diagnostics` turns them into p-values, flags and advice).

Input layout, every kernel: ``values`` (float64, no NaN), ``processes`` (CSR offsets into
`values`, one segment per process) and ``group_processes`` (CSR offsets into the processes, one
segment per group). A group is on the log scale when each of its values is > 0.
"""
import numpy as np

from fastperf.kernels.builds import Chunking, group_kernel, njit, prange
from fastperf.kernels.dip import OK, dip_of_sorted, dip_pvalue, segment_status
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


# about 14 ns a value (10,000 groups of 62: 8.6 ms serially): threads pay from ~100,000
@group_kernel(min_rows=100_000, inputs=3, chunking=Chunking(nested=((1, 2),)))
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
            # the profile is then the values on the scale (0 + v, over 1: the same bits)
            mean, var = mean_and_variance(sums, d)
            moments[g, 0], moments[g, 1], moments[g, 2] = d, mean, var
            mean, var = mean_and_variance(sums[d:], stop - start - d)
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


#: `mann_kendall` sorts blocks of this many values by insertion (counting each shift) before
#: merging them: below it, insertion's few moves beat the merge's unpredictable branches.
INSERTION_BLOCK = 32


@njit(cache=True)
def merge_count(source, target, low, middle, high):
    """Merge the sorted runs source[low:middle] and source[middle:high] into target[low:high];
    the pairs (i < j) of the two runs with source_i > source_j (strictly) that the merge
    passes over."""
    i, j, k = low, middle, low
    inversions = 0
    while i < middle and j < high:  # selects, not branches: the comparisons are unpredictable
        left, right = source[i], source[j]
        passed = right < left
        target[k] = right if passed else left
        inversions += middle - i if passed else 0
        j += 1 if passed else 0
        i += 0 if passed else 1
        k += 1
    while i < middle:
        target[k] = source[i]
        i += 1
        k += 1
    while j < high:
        target[k] = source[j]
        j += 1
        k += 1
    return inversions


@njit(cache=True)
def merge_count_both_ends(source, target, low, middle, high):
    """`merge_count` of runs without NaN, as two merges at once.

    Notes
    -----
    Two merges run at once, one from the front (the smallest values first) and one from the
    back (the largest first), each writing half of `target`: two independent chains of loads
    and selects, where one merge is bound by the latency of its chain. The front passes right
    value r over the left values not yet taken (all greater than r); the back, taking r, counts
    the left values it has taken (all greater than r): each right value is counted once, by
    the merge that takes it. Both break ties towards the left run (stable), so together they
    write the stable merge.
    """
    i, j, k = low, middle, low
    ib, jb, kb = middle - 1, high - 1, high - 1
    split = low + (high - low) // 2  # the front writes target[low:split], the back the rest
    inversions = 0
    # both merges while every run they read is non-empty; arithmetic on the comparisons, not
    # selects, which the generic-CPU build turns into branches (the comparisons are
    # unpredictable)
    while k < split and kb >= split and i < middle and j < high and ib >= low and jb >= middle:
        passed = int(source[j] < source[i])  # front: the right value first
        target[k] = source[i + passed * (j - i)]
        inversions += passed * (middle - i)
        j += passed
        i += 1 - passed
        k += 1
        taken = int(source[ib] > source[jb])  # back: the left value first
        target[kb] = source[jb + taken * (ib - jb)]
        inversions += (1 - taken) * (middle - 1 - ib)
        ib -= taken
        jb -= 1 - taken
        kb -= 1
    while k < split:  # the front's rest
        if i < middle and (j >= high or not source[j] < source[i]):
            target[k] = source[i]
            i += 1
        else:
            target[k] = source[j]
            inversions += middle - i
            j += 1
        k += 1
    while kb >= split:  # the back's rest
        if ib >= low and (jb < middle or source[ib] > source[jb]):
            target[kb] = source[ib]
            ib -= 1
        else:
            target[kb] = source[jb]
            inversions += middle - 1 - ib
            jb -= 1
        kb -= 1
    return inversions


#: `mann_kendall` counts the pairs one by one up to this many values (no sort: a vectorised
#: sum of comparisons beats the sort's dependent chains on short sequences).
PAIR_COUNT_MAX = 64


@njit(cache=True)
def mann_kendall_pairs(y, count):
    """`mann_kendall` of ``y[:count]`` (no NaN) by comparing every pair: S, and the ties'
    ``sum_t t (t - 1) (2t + 5)``.

    Notes
    -----
    For the i-th value, e_i values after it are equal to it: over a tie group of t values the
    e_i are t - 1, ..., 1, 0, and ``sum 6 e_i (e_i + 2) = t (t - 1) (2t + 5)`` (the sums of e
    and e^2). The counts are summed as floats (exact below 2^53), which the generic-CPU build
    vectorises; the result is in integers, exact as the float sum of exact integers is.
    """
    s = 0
    ties = 0
    for i in range(count - 1):
        v = y[i]
        above = 0.0
        below = 0.0
        for j in range(i + 1, count):
            above += np.float64(y[j] > v)
            below += np.float64(y[j] < v)
        greater = int(above)
        less = int(below)
        equal = count - 1 - i - greater - less
        s += greater - less
        ties += 6 * equal * (equal + 2)
    return s, ties


@njit(cache=True)
def mann_kendall(y, count, work, scratch):
    """Mann-Kendall S of ``y[:count]`` in its order, and its variance under no trend with ties.

    Parameters
    ----------
    y : numpy.ndarray of float64
        The sequence (read only).
    count : int
        Its length.
    work, scratch : numpy.ndarray of float64
        Work arrays of at least `count` values (overwritten).

    Returns
    -------
    s : float
        Concordant minus discordant pairs of (index, y): sum over i < j of sign(y_j - y_i).
    variance : float
        ``(n (n - 1) (2n + 5) - sum_t t (t - 1) (2t + 5)) / 18`` over the tie groups t of y.

    Notes
    -----
    Mann (1945), Kendall (1975). Up to `PAIR_COUNT_MAX` values without NaN, every pair
    compared (`mann_kendall_pairs`); else O(n log n) by a merge sort counting the discordant
    pairs (Knight 1966, "A computer method for calculating Kendall's tau with ungrouped data",
    JASA 61, 436-439): blocks of `INSERTION_BLOCK` values sorted by insertion (each shift
    passes one discordant pair), then merged bottom-up between the two work arrays
    (`merge_count_both_ends`; `merge_count` with a NaN); tied pairs are neither; the tie groups read off the sorted values.
    """
    n = float(count)
    ordered = True  # no NaN: the values are totally ordered
    for j in range(count):
        ordered = ordered and y[j] == y[j]
    if ordered and count <= PAIR_COUNT_MAX:
        s, ties = mann_kendall_pairs(y, count)
        return float(s), (n * (n - 1.0) * (2.0 * n + 5.0) - float(ties)) / 18.0
    for j in range(count):
        work[j] = y[j]
    discordant = 0
    for low in range(0, count, INSERTION_BLOCK):
        high = min(low + INSERTION_BLOCK, count)
        for i in range(low + 1, high):
            v = work[i]
            j = i
            while j > low and work[j - 1] > v:
                work[j] = work[j - 1]
                j -= 1
            work[j] = v
            discordant += i - j
    x, other = work, scratch
    width = INSERTION_BLOCK
    while width < count:
        for low in range(0, count, 2 * width):
            middle = min(low + width, count)
            high = min(low + 2 * width, count)
            if ordered:
                discordant += merge_count_both_ends(x, other, low, middle, high)
            else:
                discordant += merge_count(x, other, low, middle, high)
        x, other = other, x
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
                  "sd", "trend_units", "trend_s", "trend_variance", "slope", "dip", "dip_status",
                  "dip_pvalue")
#: `steady_statistics` takes its groups in chunks of this many, each chunk with one set of work
#: arrays (as long as its longest group): no allocation per group.
GROUPS_PER_CHUNK = 256


@njit(cache=True)
def spread_ties(values, start, stop, out):
    """``values[start:stop]`` (sorted ascending, no NaN) into ``out[:stop - start]`` with every
    run of t values tied at v spread over one quantum q: the i-th becomes
    v + q ((i + 1/2) / t - 1/2), q the smallest positive gap between distinct values
    (unchanged where there is no such gap).

    Notes
    -----
    A timer's tick rounds a continuous value to the middle of its bin: spreading a bin's t
    values evenly over it restores the continuous empirical distribution the dip's null table
    assumes (the uniform; Hartigan & Hartigan 1985). On the raw ties the empirical distribution
    jumps at each tick and the dip grows: log-normal values of log-sd 1 % rounded to a tick of
    1/200 of their median are "bimodal" in 98 % of groups of 60, in 0-5 % once spread (tests).
    A run stays strictly inside its quantum around v, so the values stay sorted. One pass for
    the quantum, one for the runs of ties.
    """
    for j in range(start, stop):
        out[j - start] = values[j]
    quantum = smallest_gap(values, start, stop)
    if not np.isfinite(quantum):
        return
    i = start
    while i < stop:
        j = i + 1
        while j < stop and values[j] == values[i]:
            j += 1
        length = j - i
        if length > 1:
            for k in range(length):
                out[i - start + k] = values[i] + quantum * ((k + 0.5) / length - 0.5)
        i = j


@njit(cache=True)
def steady_group(stats, g, scaled, processes, first, last, d, raw, x, count, trend, work,
                 scratch, spread, minorant, majorant, gcm, lcm, dip_sizes, dip_probabilities,
                 dip_quantiles):
    """`steady_statistics`' row ``stats[g]`` of one group: its processes
    ``first .. last - 1`` less their first `d` values; `raw` and `x` its `count` sorted steady
    values as they are and on its scale; the rest work arrays (`steady_statistics`)."""
    stats[g, 0] = count
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
        s, variance = mann_kendall(trend, units, work, scratch)
        stats[g, 11], stats[g, 12] = s, variance
        stats[g, 13] = ols_slope(trend, units)
    stats[g, 15] = OK
    if count == 0:
        return
    # the moments of the values over their largest magnitude: no overflow near 1e308
    scale = max(abs(raw[0]), abs(raw[count - 1]))
    if not (scale > 0 and np.isfinite(scale)):
        scale = 1.0
    total = 0.0
    for j in range(count):
        total += raw[j] / scale
    mean = total / count
    spread_sum = 0.0
    for j in range(count):
        spread_sum += (raw[j] / scale - mean) * (raw[j] / scale - mean)
    stats[g, 8] = mean * scale
    if count > 1:
        stats[g, 9] = np.sqrt(spread_sum / (count - 1)) * scale
    stats[g, 7] = linear_quantile(raw, count, 0.5)
    distinct = 1
    quantum = np.inf
    for j in range(1, count):
        if raw[j] != raw[j - 1]:
            distinct += 1
            quantum = min(quantum, raw[j] - raw[j - 1])
    stats[g, 6] = distinct
    stats[g, 5] = quantum if distinct > 1 else np.nan
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
    if count < dip_sizes[0]:
        return
    spread_ties(x, 0, count, spread)
    code = segment_status(spread, 0, count)
    stats[g, 15] = code
    if code != OK:
        return
    dip = dip_of_sorted(spread[:count], minorant, majorant, gcm, lcm)
    stats[g, 14] = dip
    stats[g, 16] = dip_pvalue(dip, float(count), dip_sizes, dip_probabilities, dip_quantiles)


# about 55 ns a value (20,000 groups of 31: 35 ms serially): threads pay from ~50,000
@group_kernel(min_rows=50_000, inputs=11,
              chunking=Chunking(nested=((1, 2),), per_group=(3, 6, 7)))
def steady_statistics(scaled, processes, group_processes, truncation, sorted_raw,
                      sorted_scaled, sorted_starts, n_steady, dip_sizes, dip_probabilities,
                      dip_quantiles):
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
        ``sorted_starts[g]:sorted_starts[g] + n_steady[g]``.
    sorted_starts, n_steady : numpy.ndarray of int64
        Per group, where its sorted steady values start, and how many there are.
    dip_sizes, dip_probabilities, dip_quantiles : numpy.ndarray of float64
        The dip's null table (`fastperf.engine.dip_null`: its sizes, probabilities and
        quantiles, shape (sizes, probabilities)).

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
        (`mann_kendall` of it), slope (`ols_slope` of it); dip (`fastperf.kernels.dip`'s
        `dip_of_sorted` of the sorted values on the scale with their ties spread:
        `spread_ties`), dip_status (a code of `fastperf.kernels.dip.STATUS_MESSAGES`: why the
        dip is NaN), dip_pvalue (`fastperf.kernels.dip.dip_pvalue`); NaN where undefined, and
        the dip's three NaN, NaN and 0 ("ok") below the table's least size.
    """
    n_groups = group_processes.shape[0] - 1
    stats = np.full((n_groups, len(STEADY_COLUMNS)), np.nan)
    n_chunks = (n_groups + GROUPS_PER_CHUNK - 1) // GROUPS_PER_CHUNK
    for c in prange(n_chunks):
        low = c * GROUPS_PER_CHUNK
        high = min(low + GROUPS_PER_CHUNK, n_groups)
        longest = 1
        for g in range(low, high):
            longest = max(longest, n_steady[g], group_processes[g + 1] - group_processes[g])
        trend = np.empty(longest)
        work = np.empty(longest)
        scratch = np.empty(longest)
        spread = np.empty(longest)
        minorant = np.empty(longest, dtype=np.int64)
        majorant = np.empty(longest, dtype=np.int64)
        gcm = np.empty(longest, dtype=np.int64)
        lcm = np.empty(longest, dtype=np.int64)
        for g in range(low, high):
            base = sorted_starts[g]
            count = n_steady[g]
            steady_group(stats, g, scaled, processes, group_processes[g],
                         group_processes[g + 1], truncation[g], sorted_raw[base:base + count],
                         sorted_scaled[base:base + count], count, trend, work, scratch, spread,
                         minorant, majorant, gcm, lcm, dip_sizes, dip_probabilities,
                         dip_quantiles)
    return stats


@njit(cache=True)
def steady_rows(values, processes, group_processes, truncation, width):
    """Each group's steady values (each process less its first ``truncation[g]``) in one row
    of a rectangle, in measurement order, the row padded with +inf.

    Parameters
    ----------
    values, processes, group_processes, truncation
        As `steady_statistics`' `scaled`, `processes`, `group_processes`, `truncation`.
    width : int
        The rectangle's width: at least each group's steady values.

    Returns
    -------
    numpy.ndarray of float64, shape (groups, width)

    Notes
    -----
    Sorting each row (numpy's vectorised sort of the rectangle) puts the padding after the
    values: +inf sorts last, beside an infinite value equal to it. CSR bookkeeping: no formula.
    """
    n_groups = group_processes.shape[0] - 1
    rows = np.full((n_groups, width), np.inf)
    for g in range(n_groups):
        d = truncation[g]
        k = 0
        for p in range(group_processes[g], group_processes[g + 1]):
            for j in range(processes[p] + d, processes[p + 1]):
                rows[g, k] = values[j]
                k += 1
    return rows
