"""Penalised optimal segmentation of many series at once into level and drift segments (PELT).

Per series y_0..y_{n-1} (already on the scale searched: logs of positive data):

1. **Noise scale** sigma: the root mean square of the first differences d_i = y_{i+1} - y_i
   without their largest tenth (a step or a spike moves one or two of them), made consistent
   for normal noise, and at least one quantum's rounding noise, the smallest positive gap
   between distinct values over sqrt(12) (`noise_scale`); a constant series gets one level
   segment, sigma 0 and no search.
2. **Robust clipping**: y_i is clipped to w_i +- 2.5 sigma, w_i the running median of
   y_{i-m}..y_{i+m}, m = min_size (truncated at the ends). Running medians keep steps (monotone
   edges) and follow linear trends, and a window of 2 m + 1 points ignores up to m clustered
   spikes (Tukey 1977, *Exploratory Data Analysis*, ch. 7); a stretch shorter than min_size is
   below the search's resolution anyway. Clipping the residual at a few scales is Huber's (1964,
   "Robust estimation of a location parameter", Ann. Math. Statist. 35, 73-101) bounded
   influence; at 2.5 (rather than 3) scales, two or three spikes within min_size points rarely
   lift a short segment enough to pay for two changes. Costs use z_i = (clipped y_i - ref) / sigma, ref the
   clipped middle point (a centring against cancellation; no cost depends on it).
3. **Costs** of a segment [s, t), L = t - s, O(1) each from prefix sums of z, z^2 and x z
   (x_i = i - (n - 1) / 2, centred positions; the sums over x and x^2 are closed forms): the
   level cost is the RSS of z about its mean; the drift cost (when allowed and L >= min_drift)
   the RSS about its least-squares line plus `drift_penalty`; the segment's cost is the smaller
   (level unless the drift is lower by more than the tie tolerance).
4. **Objective**: the sum over segments of (cost + log L) plus beta per change, beta = 3 log n:
   the MBIC (Zhang & Siegmund 2007, Biometrics 63, 22-32) as R's changepoint package implements
   it (Killick & Eckley 2014; the penalty of the TCPD benchmark's best method), 3 k log n +
   sum log L_i, which is Zhang & Siegmund's 3 k log n + sum log(L_i / n) without its - log n
   per segment: k log n dearer, fewer false changes. Or a given beta per change and no log L
   term.
5. **Search**: optimal partitioning, F(t) = min_s F(s) + c(s, t) + beta, F(0) = -beta, over
   s in {0} and [min_size, t - min_size] (R's changepoint package's minimum segment length),
   with PELT's pruning (Killick, Fearnhead & Eckley 2012, JASA 107, 1590-1598), kept exact: see
   `optimal_changes`.
6. **Serial dependence**: when the residuals about the fitted segments are autocorrelated
   beyond what white noise shows (lag-1 autocorrelation phi > 2 / sqrt(n)), sigma^2 is
   replaced by the AR(1) long-run variance, sigma^2 (1 + phi) / (1 - phi)^2 for the
   difference-based sigma, and the search re-run, phi re-estimated on each new fit
   (`dependent_search`).
"""
import numpy as np

from fastperf.kernels.builds import Chunking, group_kernel, njit, prange
from fastperf.kernels.order_statistics import select, smallest_gap

#: The share of the largest first differences left out of the noise scale (steps, spikes).
TRIM = 0.1
#: E[X | X <= q] for X ~ chi-square(1) and q its 90 % quantile (scipy: chi2.cdf(q, 3) / 0.9):
#: the mean of the kept squared differences of normal noise, in units of 2 sigma^2.
TRIMMED_MEAN = 0.6230154841346819
#: The MBIC's price of a change, MBIC_LOG_FACTOR * log n (with log L per segment), as R's
#: changepoint package prices it. Measured: at 2 (Zhang & Siegmund's own constant once their
#: - log n per segment is folded in) the outliers scenario of bench/validity falls below
#: edivisive (F1 -0.016 +- 0.003, spurious short segments); at 3 no scenario does.
MBIC_LOG_FACTOR = 3.0
#: `clip_to_running_median` skips the median of a point whose band holds it with this share of
#: the band's half-width to spare (the rounding of the check is far below it).
SCREEN_MARGIN = 0.1
#: Clipping half-width around the running median, in noise scales (Huber's c): at 3, clustered
#: spikes still opened short "bump" segments (tests/test_segmentation.py: 14% of series, and
#: the outliers scenario of bench/validity below edivisive); at 2, bimodal noise is cut
#: unevenly and spurious steps follow (tests/test_changepoints.py, bimodal shape).
CLIP_SCALES = 2.5
#: A boundary beside a drift is a step only when its jump exceeds this many standard errors
#: (about z(1 - 0.001 / 2)) ...
STEP_BESIDE_DRIFT_SE = 3.29
#: ... and this many noise scales: the drift's end is estimated, and a fit that bends at a
#: slightly wrong point leaves a jump of several standard errors without any step.
STEP_BESIDE_DRIFT_SCALES = 3.0
#: Ties in the search: two values of the objective within TIE_TOLERANCE * (n + TSS) of each
#: other (TSS: the sum of squares of z about its mean) count as equal, so that rounding does not
#: decide between segmentations whose objectives are equal in exact arithmetic (quantised data).
TIE_TOLERANCE = 1e-11
#: A pruning pass runs every this many steps (pruning later never changes the result). Measured
#: on bench/test_changepoints_bench.py's histories, against a pass after every step that pruned
#: (and a wait doubling up to 8 steps after one that did not): 10 % less time in the search.
PRUNE_EVERY = 32
#: Candidates of the search are evaluated in blocks of this many (see `optimal_changes`).
BLOCK = 32
#: Serial dependence (`dependent_search`): the noise variance is inflated when the lag-1
#: autocorrelation of the residuals about the fitted segments exceeds this many standard errors
#: (1 / sqrt(n)) of its estimate on white noise ...
DEPENDENCE_SE = 2.0
#: ... and the search re-run, at most this many times (each re-run costs a search; on the 25
#: TCPD series of bench/validity/tcpd_accuracy.py 10 re-runs score about the same: F1 +0.008,
#: covering -0.002).
MAX_REFITS = 5
#: The autocorrelation is capped here: at a unit root the long-run variance is unbounded.
MAX_PHI = 0.99


@njit(cache=True)
def noise_scale(y):
    """The noise scale of a series from its first differences d_i = y_{i+1} - y_i: the root
    mean square of the d_i with the largest `TRIM` of them (rounded up) left out, over sqrt(2 TRIMMED_MEAN),
    and at least one quantum's rounding noise (the smallest positive gap between distinct values
    over sqrt(12)); 0 for a constant series (or fewer than 2 points).

    Leaving out the largest tenth removes the few differences across steps and spikes (a level
    change or an outlier moves one or two d_i), and `TRIMMED_MEAN`, E[X | X <= its 90 %
    quantile] for X ~ chi-square(1), makes it consistent for normal noise. Unlike a median
    absolute deviation, it sees noise made of few values: a timer toggling between two ticks
    with probability p (sd sqrt(p (1 - p)) ticks; the MAD of the non-zero differences is 0 or
    1.05 ticks there, and the false changes that follow were 21-71 % of stationary series), or
    bimodal noise whose modes a series visits in turn (the MAD sees one mode's spread, and the
    jumps between modes become changes: 33-73 % of stationary series with modes 10 sd apart).
    """
    n = y.shape[0]
    if n < 2:
        return 0.0
    squares = np.empty(n - 1)
    closest = np.inf  # the smallest positive |d_i|: no gap between distinct values exceeds it
    for i in range(n - 1):
        step = y[i + 1] - y[i]
        squares[i] = step * step
        if 0.0 < abs(step) < closest:
            closest = abs(step)
    kept = max(1, (n - 1) - int(np.ceil(TRIM * (n - 1))))  # a short series drops its largest
    if kept < n - 1:  # the kept smallest first, in no particular order (a selection, O(n))
        select(squares, kept - 1, 0, n - 1)
    total = 0.0
    for i in range(kept):
        total += squares[i]
    sigma = np.sqrt(total / kept / (2.0 * TRIMMED_MEAN))
    if closest < np.inf and closest / np.sqrt(12.0) <= sigma:
        return sigma  # the quantum's rounding noise cannot exceed sigma: no sort for it
    gap = smallest_gap(np.sort(y), 0, n)
    if gap == np.inf:
        return 0.0
    return max(sigma, gap / np.sqrt(12.0))


@njit(cache=True)
def sorted_insert(window, count, value):
    """Insert `value` into the sorted `window[:count]` (room for one more)."""
    k = count
    while k > 0 and window[k - 1] > value:
        window[k] = window[k - 1]
        k -= 1
    window[k] = value


@njit(cache=True)
def clip_to_running_median(y, sigma, half_window, out):
    """y_i clipped to [w_i - 2.5 sigma, w_i + 2.5 sigma] (`CLIP_SCALES`) into `out`, w_i the
    median of y[max(0, i - h):i + h + 1] (h = `half_window`; truncated at the ends; the mean
    of the middle two of an even count).

    Most points lie well inside their band, and those need no median: where the full window
    of 2 h + 1 points holds at most h values below y_i - 0.9 c and at most h above
    y_i + 0.9 c (c = 2.5 sigma), its median w_i (the (h + 1)-th smallest) is within 0.9 c of
    y_i, so w_i - c <= y_i <= w_i + c and the clip returns y_i itself. That is two counts over
    the window, without branches (both in one integer, the second in its upper 32 bits). The
    other points (and the truncated windows at the ends) get their median from a sorted copy
    of the window (insertion sort up to 32 points; above, a selection, or a sort for an even
    count's middle two). The margin, 0.1 c, must exceed the
    rounding of y_i - 0.9 c and w_i +- c; where it does not hold by a factor of 10^3 (sigma
    within about 10^-12 of the values' magnitude), every point takes the median.
    """
    n = y.shape[0]
    band = CLIP_SCALES * sigma
    inner = (1.0 - SCREEN_MARGIN) * band
    width = 2 * half_window + 1
    window = np.empty(width)
    largest = 0.0
    for i in range(n):
        largest = max(largest, abs(y[i]))
    screened = SCREEN_MARGIN * band > 1e-12 * (largest + band) and width < 2 ** 31
    for i in range(n):
        first, stop = max(0, i - half_window), min(n, i + half_window + 1)
        if screened and stop - first == width:
            low, high = y[i] - inner, y[i] + inner
            counts = 0  # below + 2^32 above: one sum, a loop the compiler vectorises
            for j in range(first, stop):
                value = y[np.uint64(j)]
                counts += np.int64(value < low) + (np.int64(value > high) << 32)
            if counts & 0xFFFFFFFF <= half_window and counts >> 32 <= half_window:
                out[i] = y[i]
                continue
        count = stop - first
        half = count // 2
        if count <= 32:  # a short window: sorted by insertion as it is copied
            for j in range(count):
                sorted_insert(window, j, y[first + j])
        else:
            window[:count] = y[first:stop]
            if count % 2 == 1:
                select(window, half, 0, count)
            else:
                window[:count].sort()
        median = window[half] if count % 2 == 1 else 0.5 * (window[half - 1] + window[half])
        out[i] = min(max(y[i], median - band), median + band)


@njit(cache=True)
def inverse_sxx(length):
    """1 / sum (x - mean x)^2 over L consecutive positions, 12 / (L (L^2 - 1)); 0 for L = 1."""
    return 12.0 / (length * (length * length - 1.0)) if length > 1 else 0.0


@njit(cache=True)
def length_tables(longest, min_drift, drift):
    """Per segment length L = 0..longest, the rows 1 / L, `inverse_sxx`, log L, and 0 where a
    drift of L points is allowed, +inf where not (0 for L = 0)."""
    tables = np.zeros((4, longest + 1))
    for length in range(1, longest + 1):
        tables[0, length] = 1.0 / length
        tables[1, length] = inverse_sxx(length)
        tables[2, length] = np.log(length)
        tables[3, length] = 0.0 if drift and length >= min_drift else np.inf
    return tables


@njit(cache=True)
def segment_cost(prefix_z, prefix_zz, prefix_xz, centre, s, t, drift_allowed, drift_penalty,
                 tolerance):
    """The costs of the segment [s, t) of z from the prefix sums (the arithmetic of
    `optimal_changes`, term for term).

    Returns
    -------
    cost : float
        The level RSS, or (when `drift_allowed`) the line's RSS plus `drift_penalty` where that
        is lower by more than `tolerance`.
    line_rss : float
        The RSS about the least-squares line (whether or not a drift is allowed; 0 for L <= 2).
    is_drift : bool
        Whether `cost` is the drift's.
    """
    length = t - s
    total = prefix_z[t] - prefix_z[s]
    level_rss = max(prefix_zz[t] - prefix_zz[s] - total * total * (1.0 / length), 0.0)
    sxz = prefix_xz[t] - prefix_xz[s] - (0.5 * (s + t - 1) - centre) * total
    line_rss = max(level_rss - sxz * sxz * inverse_sxx(length), 0.0)
    if drift_allowed:
        drift_cost = line_rss + drift_penalty
        if level_rss - drift_cost > tolerance:
            return drift_cost, line_rss, True
    return level_rss, line_rss, False


@njit(cache=True)
def optimal_changes(prefix_z, prefix_zz, prefix_xz, centre, min_size, min_drift, beta, mbic,
                    drift, drift_penalty, tolerance, tables):
    """The optimal segmentation of z (n = prefix_z.size - 1 points, n >= 2 min_size) under the
    penalised objective, by optimal partitioning with exact PELT pruning.

    Returns
    -------
    numpy.ndarray of int64
        The segment boundaries 0 = b_0 < b_1 < ... < b_k = n.

    Notes
    -----
    F(t) = min over candidates s of v_s = F(s) + c(s, t) + beta (F(0) = -beta, c with its
    log L term under MBIC); among values within `tolerance` of the minimum the earliest s wins.

    **Pruning** (Killick et al. 2012): s can be dropped for good once, at some t,
    F(s) + c(s, t) - K(s, t) > F(t) + margin, where K(s, t) bounds
    E = c(s, t) + c(t, T) - c(s, T) over every later end T: then v_s at T exceeds the value of
    the path through t, F(t) + c(t, T) + beta, so s is never chosen again. The bound, with a
    = t - s, b = T - t and RSS_lev / RSS_line the RSS about the mean / the line:

    - merged [s, T) a level: each part's cost is at most its level RSS (plus log), and level
      RSS is superadditive, so E <= log a + log b - log(a + b);
    - merged a drift: RSS_line is superadditive too, so with c(t, T) <= RSS_line(t, T)
      + drift_penalty + log b (valid only when b >= min_drift, where [t, T) may be a drift),
      E <= [c(s, t) - log a - RSS_line(s, t)] + log a + log b - log(a + b).

    The bracket (>= 0) is known at t: RSS_lev - RSS_line of [s, t) when it is a level (at
    most drift_penalty when it may be a drift, as the level was chosen), drift_penalty when it
    is a drift. So K(s, t) = that bracket (0 without drift) + max(0, log(a B / (a + B))), B =
    n - t (log(ab / (a + b)) increases with b; 0 under a given beta, without log L terms). For
    segments that may be drifts this is at most drift_penalty + log(n / 4): one extra drift
    price and the MBIC's log term, the worst case a constant K would take, but usually far
    less. The path through t exists only for T >= t + min_size (T >= t + min_drift
    with drift), so a pruned s is dropped from that T on (until then it stays a candidate). The
    margin, 3 tolerances, covers the tie rule, the drift-or-level tie rule and rounding:
    pruning never changes F or a choice (the test against the unpruned dynamic programme and
    the enumeration of every segmentation shows it).

    No pruning rule of this kind can drop a candidate inside a stretch without change (there
    the path through s and the one through t differ by noise only): such stretches cost
    O(L^2) pairs, each a handful of flops over contiguous arrays (a loop the compiler
    vectorises), with dead candidates masked rather than removed. There a pruning pass finds
    nothing, so a pass runs every `PRUNE_EVERY` steps only: pruning fewer candidates, or later,
    never changes the result.

    **Skipping** (exact too): the value of s at any later t is at least F(s) + beta + log L +
    min(RSS_lev, RSS_line + drift_penalty) at this t (both RSS grow with t, as does log L; the
    drift term only where drifts are on). The last choice and the new candidate are evaluated
    on their own first (a low value early lets more blocks be skipped); the other candidates
    are kept in blocks of `BLOCK` with the least such bound over them, and a block whose bound
    exceeds the lowest value found so far at t by more than the tie tolerance and the margin
    holds neither the minimum nor a tie with it, so it is not evaluated at t. In a stretch
    without change a candidate's value sits about beta above the minimum, and the minimum
    grows by about one per point, so most blocks wait several steps between evaluations. A
    pruning pass uses each candidate's value and slack from its last evaluation: F(s) + c(s, t)
    - slack = F(s) + RSS_line (or RSS_lev without drift) and log L only grow with t, so the
    stale values prune less, never wrongly; a pass visits only the blocks evaluated since the
    previous one and the candidates that arrived since (the others' values have not moved; a
    last choice evaluated alone, in a block not evaluated, waits for its block: pruning less is
    exact).
    """
    n = prefix_z.shape[0] - 1
    gap = min_drift if drift else min_size
    margin = 3.0 * tolerance
    slack_factor = 1.0 if drift else 0.0
    log_factor = 1.0 if mbic else 0.0
    inverse_length, inverse_line, log_length, drift_barred = (tables[0], tables[1], tables[2],
                                                              tables[3])
    best_value = np.empty(n + 1)
    previous = np.full(n + 1, -1, dtype=np.int64)
    best_value[0] = -beta
    dropped_from = np.full(n + 1, n + 1, dtype=np.int64)  # the first t where s is no candidate
    dropped_from[1:min_size] = 0  # never a candidate: a first segment shorter than min_size
    value = np.empty(n + 1)
    slack = np.empty(n + 1)
    lower = np.empty(n + 1)
    # blocks of BLOCK candidates: a lower bound of the values at every later t of their
    # candidates other than the two evaluated on their own (see below), and the step at which
    # the block was last evaluated
    n_blocks = n // BLOCK + 1
    block_bound = np.full(n_blocks, np.inf)
    evaluated_at = np.full(n_blocks, -1, dtype=np.int64)
    first = 0
    prune_next = min_size
    chosen = 0
    old_chosen, old_last = -1, -1  # the two evaluated on their own at the previous step
    pruned_at, pruned_last = -1, -1  # the step of the last pruning pass and its newest candidate
    for t in range(min_size, n + 1):
        last = t - min_size
        while first < last and dropped_from[first] <= t:
            first += 1
        # two candidates are evaluated on their own: the last choice (a low value early lets
        # the blocks be skipped) and the new one; the others' lower bounds are in their
        # blocks' bounds: those of the previous step join them, and a choice that moved
        # leaves its block's
        for s in (old_chosen, old_last):
            if s >= 0 and s != chosen:
                block_bound[s // BLOCK] = min(block_bound[s // BLOCK], lower[s])
        if chosen != old_chosen and chosen != old_last and chosen < last:
            b = chosen // BLOCK
            bound = np.inf
            for s in range(max(first, b * BLOCK), min(last, b * BLOCK + BLOCK)):
                if s != chosen:
                    bound = min(bound, lower[s])
            block_bound[b] = bound
        old_chosen, old_last = chosen, last
        z_t, zz_t, xz_t = prefix_z[t], prefix_zz[t], prefix_xz[t]
        lowest = np.inf
        # the new candidate and the last choice on their own (the two jobs before the blocks),
        # then every block whose bound does not exceed the lowest value found so far
        first_block = first // BLOCK
        for job in range(first_block - 2, last // BLOCK + 1):
            if job == first_block - 2:
                lo, hi = last, last
            elif job == first_block - 1:
                if not first <= chosen < last:
                    continue
                lo, hi = chosen, chosen
            else:
                if block_bound[job] - margin > lowest + tolerance:
                    continue
                evaluated_at[job] = t
                lo, hi = max(first, job * BLOCK), min(last, job * BLOCK + BLOCK - 1)
            for s in range(lo, hi + 1):
                # unsigned indices: no negative-index wraparound, so the loop vectorises (3x)
                i, length = np.uint64(s), np.uint64(t - s)
                total = z_t - prefix_z[i]
                level_rss = max(zz_t - prefix_zz[i] - total * total * inverse_length[length],
                                0.0)
                sxz = xz_t - prefix_xz[i] - (0.5 * (s + t - 1) - centre) * total
                line_rss = max(level_rss - sxz * sxz * inverse_line[length], 0.0)
                drift_cost = line_rss + drift_penalty + drift_barred[length]
                cost = drift_cost if level_rss - drift_cost > tolerance else level_rss
                slack[i] = (cost - line_rss) * slack_factor
                alive = dropped_from[i] > t
                fixed = best_value[i] + (beta + log_factor * log_length[length])
                value[i] = fixed + cost if alive else np.inf
                # no later value of s is below this: both RSS grow with t, so does log L
                below = min(level_rss, line_rss + drift_penalty) if drift else level_rss
                lower[i] = fixed + below if alive else np.inf
            bound = np.inf
            for s in range(lo, hi + 1):
                lowest = min(lowest, value[np.uint64(s)])
                if s != chosen and s != last:
                    bound = min(bound, lower[np.uint64(s)])
            if job >= first_block:
                block_bound[job] = bound
        # the earliest candidate within the tolerance of the lowest value: in an evaluated
        # block, or one of the two evaluated on their own
        pick = -1
        b = first // BLOCK
        while pick < 0 and b <= last // BLOCK:
            lo, hi = max(first, b * BLOCK), min(last, b * BLOCK + BLOCK - 1)
            if evaluated_at[b] == t:
                for s in range(lo, hi + 1):
                    if value[s] <= lowest + tolerance:
                        pick = s
                        break
            else:
                if lo <= chosen <= hi and value[chosen] <= lowest + tolerance:
                    pick = chosen
                elif lo <= last <= hi and value[last] <= lowest + tolerance:
                    pick = last
            b += 1
        chosen = pick
        best_value[t] = value[chosen]
        previous[t] = chosen
        if t < prune_next or t + gap > n:
            continue
        remaining = n - t
        threshold = best_value[t] + margin + beta
        # the candidates evaluated since the previous pass: the blocks evaluated since, and
        # those that arrived since (the others' values have not moved: a pass then would
        # rarely prune them, and pruning less never changes the result)
        for b in range(first // BLOCK, last // BLOCK + 1):
            if evaluated_at[b] <= pruned_at and b < (pruned_last + 1) // BLOCK:
                continue
            for s in range(max(first, b * BLOCK), min(last, b * BLOCK + BLOCK - 1) + 1):
                i = np.uint64(s)
                bound = slack[i] + log_factor * max(0.0, log_length[np.uint64(t - s)]
                                                    + log_length[np.uint64(remaining)]
                                                    - log_length[np.uint64(n - s)])
                if dropped_from[i] > n and value[i] - bound > threshold:
                    dropped_from[i] = t + gap
        pruned_at, pruned_last = t, last
        prune_next = t + PRUNE_EVERY
    count = 1
    t = n
    while previous[t] > 0:
        t = previous[t]
        count += 1
    bounds = np.empty(count + 1, dtype=np.int64)
    t = n
    for k in range(count, 0, -1):
        bounds[k] = t
        t = previous[t]
    bounds[0] = 0
    return bounds


@njit(cache=True)
def residual_autocorrelation(z, divisor, prefix_z, prefix_zz, prefix_xz, centre, bounds,
                             min_drift, drift, drift_penalty, tolerance):
    """The lag-1 autocorrelation of the residuals of z / divisor (the prefix sums' series)
    about the fit of each segment of `bounds` (its mean, or its least-squares line where the
    segment's cost is a drift's), over pairs within a segment; 0 when the residuals' sum of
    squares is within `tolerance` of 0 (an exact fit: what is left is rounding)."""
    products = 0.0
    squares = 0.0
    for k in range(bounds.shape[0] - 1):
        s, t = bounds[k], bounds[k + 1]
        length = t - s
        _, _, kind = segment_cost(prefix_z, prefix_zz, prefix_xz, centre, s, t,
                                  drift and length >= min_drift, drift_penalty, tolerance)
        total = prefix_z[t] - prefix_z[s]
        mean = total / length
        slope = 0.0
        if kind:
            sxz = prefix_xz[t] - prefix_xz[s] - (0.5 * (s + t - 1) - centre) * total
            slope = sxz * inverse_sxx(length)
        middle = 0.5 * (s + t - 1)
        previous = 0.0
        for i in range(s, t):
            residual = z[i] / divisor - mean - slope * (i - middle)
            squares += residual * residual
            if i > s:
                products += residual * previous
            previous = residual
    # an exact fit (noise-free levels) leaves rounding errors of one sign, no dependence
    return products / squares if squares > tolerance else 0.0


@njit(cache=True)
def fill_prefix_sums(z, divisor, centre, prefix_z, prefix_zz, prefix_xz):
    """The prefix sums of z / divisor, its squares and x z / divisor (x_i = i - centre);
    returns the tie tolerance at that scale, `TIE_TOLERANCE` (n + the sum of squares of
    z / divisor about its mean)."""
    n = z.shape[0]
    for i in range(n):
        scaled = z[i] / divisor
        prefix_z[i + 1] = prefix_z[i] + scaled
        prefix_zz[i + 1] = prefix_zz[i] + scaled * scaled
        prefix_xz[i + 1] = prefix_xz[i] + (i - centre) * scaled
    spread = max(prefix_zz[n] - prefix_z[n] * prefix_z[n] / n, 0.0)
    return TIE_TOLERANCE * (n + spread)


@njit(cache=True)
def dependent_search(z, centre, min_size, min_drift, beta, mbic, drift, drift_penalty, tables,
                     dependence, prefix_z, prefix_zz, prefix_xz):
    """The optimal segmentation of z (`optimal_changes`), its noise variance inflated for
    serial dependence when `dependence`.

    Returns
    -------
    bounds : numpy.ndarray of int64
        The segment boundaries.
    inflation : float
        The factor of the noise variance used (1: none); the prefix sums are left at
        z / sqrt(inflation).
    phi : float
        The lag-1 autocorrelation of the residuals about the fit of `bounds`.
    tolerance : float
        The tie tolerance at that scale.

    Notes
    -----
    The penalised costs are likelihoods of independent noise. Serially dependent noise (a
    series that wanders: seasonality, a slowly varying load, a process that remembers) has a
    long-run variance above the variance the costs assume, and measured against the latter
    its excursions pass for changes: the search then cuts the series into many short
    segments. What the merge of two segments of L1 and L2 points saves in residual sum of
    squares is about (L1 L2 / (L1 + L2)) times the squared difference of their means, whose
    variance, for long segments, is the long-run variance (the variance of the mean of L
    points, times L, as L grows) times (L1 + L2) / (L1 L2); so the saving is a chi-square(1)
    in units of the long-run variance, and that is the scale the penalty must be measured in
    (gauging changes against the long-run variance is how segmentation accounts for dependent
    noise: Lavielle & Moulines 2000, J. Time Ser. Anal. 21, 33-59; Chakar, Lebarbier,
    Levy-Leduc & Robin 2017, Bernoulli 23, 1408-1447, for AR(1) noise; Romano, Rigaill,
    Runge & Fearnhead 2022, JASA 117, 2147-2162). Under an AR(1) model of the noise with
    coefficient phi and marginal variance gamma_0, the long-run variance is
    gamma_0 (1 + phi) / (1 - phi), and the first differences have variance 2 gamma_0 (1 - phi),
    so the difference-based sigma^2 (`noise_scale`) estimates gamma_0 (1 - phi): the long-run
    variance is sigma^2 (1 + phi) / (1 - phi)^2. Here phi is the lag-1
    autocorrelation of the residuals about the fitted segments (pairs within a segment). When
    it exceeds `DEPENDENCE_SE` / sqrt(n) (white noise rarely does: its estimate has standard
    error about 1 / sqrt(n)), the variance is multiplied by (1 + phi) / (1 - phi)^2 (phi capped
    at `MAX_PHI`) and the search re-run on the rescaled costs. An over-split fit absorbs part of
    the dependence, so phi is estimated again on the new fit, and the factor grows while phi
    does, until a re-run keeps the boundaries, at most `MAX_REFITS` times.
    """
    n = z.shape[0]
    tolerance = fill_prefix_sums(z, 1.0, centre, prefix_z, prefix_zz, prefix_xz)
    bounds = optimal_changes(prefix_z, prefix_zz, prefix_xz, centre, min_size, min_drift, beta,
                             mbic, drift, drift_penalty, tolerance, tables)
    inflation = 1.0
    for refit in range(MAX_REFITS + 1):
        phi = residual_autocorrelation(z, np.sqrt(inflation), prefix_z, prefix_zz,
                                       prefix_xz, centre, bounds, min_drift, drift,
                                       drift_penalty, tolerance)
        if not dependence or refit == MAX_REFITS or not phi > DEPENDENCE_SE / np.sqrt(n):
            break
        capped = min(phi, MAX_PHI)
        factor = (1.0 + capped) / ((1.0 - capped) * (1.0 - capped))
        if factor <= inflation:
            break
        inflation = factor
        tolerance = fill_prefix_sums(z, np.sqrt(inflation), centre, prefix_z, prefix_zz,
                                     prefix_xz)
        refitted = optimal_changes(prefix_z, prefix_zz, prefix_xz, centre, min_size, min_drift,
                                   beta, mbic, drift, drift_penalty, tolerance, tables)
        same = refitted.shape[0] == bounds.shape[0]
        for k in range(refitted.shape[0] if same else 0):
            same = same and refitted[k] == bounds[k]
        bounds = refitted
        if same:  # a fixed point: phi of these boundaries, and no further search
            phi = residual_autocorrelation(z, np.sqrt(inflation), prefix_z, prefix_zz,
                                           prefix_xz, centre, bounds, min_drift, drift,
                                           drift_penalty, tolerance)
            break
    return bounds, inflation, phi, tolerance


@njit(cache=True)
def line_fit(y, s, t, drift):
    """The fit of y[s:t] in its own units: (value at its first point, slope per point), the
    mean and 0 for a level, the least-squares line (two-pass) for a drift."""
    length = t - s
    mean = 0.0
    for i in range(s, t):
        mean += y[i]
    mean /= length
    if not drift:
        return mean, 0.0
    mean_x = 0.5 * (length - 1)
    sxy = 0.0
    for i in range(s, t):
        sxy += (i - s - mean_x) * (y[i] - mean)
    slope = sxy / (length * (length * length - 1.0) / 12.0)
    return mean - slope * mean_x, slope


@njit(cache=True)
def prediction_variance(length, drift, position):
    """The variance of a fit at `position` (relative to the segment's first point), in units
    of sigma^2: 1 / L for a level, 1 / L + (x - mean x)^2 / Sxx for a line."""
    if not drift:
        return 1.0 / length
    mean_x = 0.5 * (length - 1)
    return 1.0 / length + (position - mean_x) ** 2 / (length * (length * length - 1.0) / 12.0)


@njit(cache=True)
def boundary_steps(is_drift, jump, jump_se, sigma, step):
    """Which boundaries of one series' segments are steps, into `step` (False for the first
    segment): every one between two levels; one beside a drift only when |jump| > max(
    `STEP_BESIDE_DRIFT_SE` jump_se, `STEP_BESIDE_DRIFT_SCALES` sigma); the others are kinks
    (the level bends into or out of a drift without jumping)."""
    step[0] = False
    for k in range(1, is_drift.shape[0]):
        if not is_drift[k - 1] and not is_drift[k]:
            step[k] = True
        else:
            step[k] = abs(jump[k]) > max(STEP_BESIDE_DRIFT_SE * jump_se[k],
                                          STEP_BESIDE_DRIFT_SCALES * sigma)


@njit(cache=True)
def ramp_explained(prefix_z, prefix_xz, centre, first, last, s, e):
    """The sum of squares of z over [first, last) that the ramp with kinks at s and e
    explains beyond the mean, Suz^2 / Suu, u = clip(i - (s - 1/2), 0, e - s), in O(1) from the
    prefix sums (x_i = i - centre): the ramp's RSS is the total minus this."""
    length = e - s
    after = last - e
    count = last - first
    su = 0.5 * length * length + length * after
    suu = length * (4.0 * length * length - 1.0) / 12.0 + length * length * after - su * su / count
    sz = prefix_z[last] - prefix_z[first]
    suz = (prefix_xz[e] - prefix_xz[s] + (centre - s + 0.5) * (prefix_z[e] - prefix_z[s])
           + length * (prefix_z[last] - prefix_z[e]) - su * sz / count)
    return suz * suz / suu


@njit(cache=True)
def refine_kinks(prefix_z, prefix_xz, centre, start, end, is_drift, step, min_size, min_drift,
                 tolerance):
    """Move each drift's kinks (its boundaries with a level neighbour that are not steps) to
    where the continuous ramp fits best, in place in `start` / `end`.

    The search places a drift's ends where a line and a level, each fitted on its own, fit
    best; that boundary wanders by several points (the ends of a gradual change differ from
    the level by a fraction of the noise), and the ramp fitted at it inherits the error (its
    change's interval covers the truth about 2 times in 3 on flat-ramp-flat histories). Least
    squares over the kink positions of the continuous model (segmented regression, Muggeo
    2003, Statistics in Medicine 22, 3055-3071) places them within about 2 points. Per drift,
    over the points from the start of its left level neighbour to the end of its right one
    (across kinks only): coordinate descent, the kink before it over every position that keeps
    min_size points in the level and min_drift in the drift, then the kink after it, until
    neither moves (at most 20 rounds); each scan takes the first position whose
    `ramp_explained` beats every earlier one by more than `tolerance`. Segments keep their
    kinds; the boundaries of steps and of drift-drift pairs stay.
    """
    last_segment = is_drift.shape[0] - 1
    for k in range(last_segment + 1):
        if not is_drift[k]:
            continue
        left = k > 0 and not is_drift[k - 1] and not step[k]
        right = k < last_segment and not is_drift[k + 1] and not step[k + 1]
        if not left and not right:
            continue
        first = start[k - 1] if left else start[k]
        last = end[k + 1] if right else end[k]
        s, e = start[k], end[k]
        for _ in range(20):
            moved = False
            if left:
                best, where = -np.inf, s
                for candidate in range(first + min_size, e - min_drift + 1):
                    value = ramp_explained(prefix_z, prefix_xz, centre, first, last, candidate, e)
                    if value > best + tolerance:
                        best, where = value, candidate
                moved = where != s
                s = where
            if right:
                best, where = -np.inf, e
                for candidate in range(s + min_drift, last - min_size + 1):
                    value = ramp_explained(prefix_z, prefix_xz, centre, first, last, s, candidate)
                    if value > best + tolerance:
                        best, where = value, candidate
                moved = moved or where != e
                e = where
            if not moved:
                break
        start[k], end[k] = s, e
        if left:
            end[k - 1] = s
        if right:
            start[k + 1] = e


@njit(cache=True)
def ramp_fit(y, first, last, s, e):
    """The least-squares ramp y = a + b u over y[first:last], u = clip(i - (s - 1/2), 0, L)
    (L = e - s: flat at a before the drift [s, e), a line along it, flat at a + b L after),
    two-pass. Returns (a, b, sum (u - mean u)^2)."""
    length = e - s
    count = last - first
    mean_u = 0.0
    mean_y = 0.0
    for i in range(first, last):
        mean_u += min(max(i - s + 0.5, 0.0), length)
        mean_y += y[i]
    mean_u /= count
    mean_y /= count
    suu = 0.0
    suy = 0.0
    for i in range(first, last):
        du = min(max(i - s + 0.5, 0.0), length) - mean_u
        suu += du * du
        suy += du * (y[i] - mean_y)
    b = suy / suu
    return mean_y - b * mean_u, b, suu


@njit(cache=True)
def ramp_variances(first, last, s, e, slope, left, right):
    """Var(b) and Var(b L) of the ramp y = a + b u over [first, last) (`ramp_fit`), in units
    of sigma^2, with the kinks at s (when `left`) and e (when `right`) estimated too.

    The delta method over the parameters (a, b, s, e) of the least-squares fit (segmented
    regression: Muggeo 2003, Statistics in Medicine 22, 3055-3071): the design's columns are
    1, u, and the derivatives of the fit in a kink's position, -b 1{i >= s} and b 1{i >= e}
    (only for the kinks that were fitted), and Var(theta) = sigma^2 (J'J)^-1; the change
    b L = b (e - s) has gradient (0, L, -b, b). Without fitted kinks this is sigma^2 / Suu and
    L^2 sigma^2 / Suu.
    """
    length = e - s
    size = 2 + (1 if left else 0) + (1 if right else 0)
    gram = np.zeros((4, 4))
    column = np.zeros(4)
    for i in range(first, last):
        column[0] = 1.0
        column[1] = min(max(i - s + 0.5, 0.0), length)
        k = 2
        if left:
            column[k] = -slope if i >= s else 0.0
            k += 1
        if right:
            column[k] = slope if i >= e else 0.0
        for a in range(size):
            for b in range(size):
                gram[a, b] += column[a] * column[b]
    gradient = np.zeros(4)
    gradient[1] = length
    k = 2
    if left:
        gradient[k] = -slope
        k += 1
    if right:
        gradient[k] = slope
    unit = np.zeros(4)
    unit[1] = 1.0
    return (quadratic_inverse(gram, unit, size), quadratic_inverse(gram, gradient, size))


@njit(cache=True)
def quadratic_inverse(gram, vector, size):
    """v' G^-1 v for the leading size x size block of a symmetric positive definite G, by its
    Cholesky factor (G = R'R: v' G^-1 v = |R'^-1 v|^2); inf when G is singular."""
    factor = np.zeros((4, 4))
    for j in range(size):
        total = gram[j, j]
        for k in range(j):
            total -= factor[k, j] * factor[k, j]
        if not total > 0.0:
            return np.inf
        factor[j, j] = np.sqrt(total)
        for i in range(j + 1, size):
            total = gram[j, i]
            for k in range(j):
                total -= factor[k, j] * factor[k, i]
            factor[j, i] = total / factor[j, j]
    solved = np.zeros(4)
    result = 0.0
    for i in range(size):
        total = vector[i]
        for k in range(i):
            total -= factor[k, i] * solved[k]
        solved[i] = total / factor[i, i]
        result += solved[i] * solved[i]
    return result


@njit(cache=True)
def refit_ramps(y, sigma, start, end, is_drift, step, level, slope, slope_se, ramp_start,
                ramp_end, ramp_se, kinks_fitted):
    """Each drift of one series refitted as a continuous ramp joined to its level neighbours
    across kinks (`ramp_fit` from the start of a level before it, to the end of a level after
    it, where the boundary between them is not a step; else from / to the drift's own ends):
    its `level` (the ramp at its first point, a + b / 2), `slope` b and `slope_se` replaced;
    `ramp_start` a, `ramp_end` a + b L and `ramp_se` (the standard error of b L) set (NaN
    stays for levels). The standard errors are `ramp_variances`', with the kinks counted as
    estimated when `kinks_fitted` (`refine_kinks` placed them)."""
    last_segment = is_drift.shape[0] - 1
    for k in range(last_segment + 1):
        if not is_drift[k]:
            continue
        s, e = start[k], end[k]
        left = k > 0 and not is_drift[k - 1] and not step[k]
        right = k < last_segment and not is_drift[k + 1] and not step[k + 1]
        first = start[k - 1] if left else s
        last = end[k + 1] if right else e
        a, b, _ = ramp_fit(y, first, last, s, e)
        slope_variance, change_variance = ramp_variances(
            first, last, s, e, b, left and kinks_fitted, right and kinks_fitted)
        level[k], slope[k] = a + 0.5 * b, b
        slope_se[k] = sigma * np.sqrt(slope_variance)
        ramp_start[k], ramp_end[k] = a, a + b * (e - s)
        ramp_se[k] = sigma * np.sqrt(change_variance)


@group_kernel(min_rows=100_000, inputs=3,
              chunking=Chunking(csr=((0, 1),), per_group=(2,), slotted=tuple(range(2, 15))))
def segment(values, offsets, active, min_size, min_drift, mbic, penalty, drift, drift_penalty,
            robust, refine, dependence):
    """The penalised optimal segmentation into level and drift segments, of every active series.

    Parameters
    ----------
    values : numpy.ndarray of float64
        The points, series after series (finite in active series).
    offsets : numpy.ndarray of int64
        CSR offsets of the series into `values`.
    active : numpy.ndarray of bool
        The series to segment; the others get no segment and NaN scale and penalty.
    min_size : int
        The fewest points of a segment (>= 1).
    min_drift : int
        The fewest points of a drift segment.
    mbic : bool
        The MBIC penalty: beta = `MBIC_LOG_FACTOR` log n per change and log L per segment.
    penalty : float
        beta per change when not `mbic` (> 0; no log L terms).
    drift : bool
        Whether a segment may be a drift.
    drift_penalty : float
        The price of a drift's slope, in the cost's units; NaN: beta, a change's price.
    robust : bool
        Whether to clip the points against their running median first.
    refine : bool
        Whether to move the drifts' kinks to where the continuous ramps fit best
        (`refine_kinks`); otherwise the boundaries are the optimum's.
    dependence : bool
        Whether to inflate the noise variance for serial dependence (`dependent_search`).

    Returns
    -------
    slots : numpy.ndarray of int64
        ``n_series + 1`` offsets: series g's segments are in the slots slots[g]:slots[g] +
        counts[g] of the arrays below (room for max(1, n // min_size) of an active series).
    counts : numpy.ndarray of int64
        Per series, its number of segments.
    start, end : numpy.ndarray of int64
        Each segment's first point and one past its last, relative to its series' start.
    is_drift : numpy.ndarray of bool
    level : numpy.ndarray of float64
        The fit at the segment's first point (of the clipped values, in the input's units).
    slope : numpy.ndarray of float64
        Per point (0 for a level).
    slope_se : numpy.ndarray of float64
        sigma / sqrt(sum (x - mean x)^2) (NaN for a level).
    evidence : numpy.ndarray of float64
        For the boundary before the segment (NaN for the first): cost(merged) - cost(left) -
        cost(right), in the z units (the merged segment with the best kind allowed for its
        length): a -2 log-likelihood ratio, drift prices included, log L terms not.
    jump, jump_se : numpy.ndarray of float64
        The segment's fit at its first point minus the previous segment's fit extrapolated to
        it, and its standard error sigma sqrt(var_right + var_left) from the two fits'
        prediction variances (NaN for the first).
    step : numpy.ndarray of bool
        Whether the boundary before the segment is a step (`boundary_steps`; False for the
        first): between two levels always, beside a drift only when the jump is large.
    ramp_start, ramp_end, ramp_se : numpy.ndarray of float64
        A drift's ramp (`refit_ramps`): the levels where it starts and ends (the fit half a
        point before its first point and half a point after its last), and the standard error
        of their difference; NaN for a level.
    scale : numpy.ndarray of float64
        Per series, sigma (0 for a constant series), times the square root of the inflation
        for serial dependence (`dependent_search`).
    beta : numpy.ndarray of float64
        Per series, the penalty per change used.
    autocorrelation : numpy.ndarray of float64
        Per series, the lag-1 autocorrelation of the residuals about the fits of its final
        segments (`dependent_search`'s phi; NaN where no search ran: inactive, constant or
        shorter than 2 min_size).
    inflation : numpy.ndarray of float64
        Per series, the factor the noise variance was multiplied by for serial dependence (1:
        none; NaN where no search ran): (1 + phi) / (1 - phi)^2 for the phi of the fit before
        the last search.

    Notes
    -----
    The method and its sources are in the module's docstring, the pruning's exactness in
    `optimal_changes`. A series shorter than 2 min_size gets one level segment. A drift's
    `level`, `slope` and `slope_se` are those of its ramp (`refit_ramps`); `jump`, `jump_se`
    and `evidence` come from each segment's own fit, before the refit.
    """
    n_series = offsets.shape[0] - 1
    slots = np.zeros(n_series + 1, dtype=np.int64)
    longest = 0
    for g in range(n_series):
        n = offsets[g + 1] - offsets[g]
        longest = max(longest, n)
        slots[g + 1] = slots[g] + (max(1, n // min_size) if active[g] and n > 0 else 0)
    total = slots[n_series]
    counts = np.zeros(n_series, dtype=np.int64)
    start = np.zeros(total, dtype=np.int64)
    end = np.zeros(total, dtype=np.int64)
    is_drift = np.zeros(total, dtype=np.bool_)
    level = np.full(total, np.nan)
    slope = np.full(total, np.nan)
    slope_se = np.full(total, np.nan)
    evidence = np.full(total, np.nan)
    jump = np.full(total, np.nan)
    jump_se = np.full(total, np.nan)
    step = np.zeros(total, dtype=np.bool_)
    ramp_start = np.full(total, np.nan)
    ramp_end = np.full(total, np.nan)
    ramp_se = np.full(total, np.nan)
    scale = np.full(n_series, np.nan)
    beta_out = np.full(n_series, np.nan)
    autocorrelation = np.full(n_series, np.nan)
    inflation_out = np.full(n_series, np.nan)
    tables = length_tables(longest, min_drift, drift)
    for g in prange(n_series):
        n = offsets[g + 1] - offsets[g]
        if not active[g] or n == 0:
            continue
        y = values[offsets[g]:offsets[g + 1]]
        base = slots[g]
        beta = MBIC_LOG_FACTOR * np.log(n) if mbic else penalty
        price = beta if np.isnan(drift_penalty) else drift_penalty
        beta_out[g] = beta
        sigma = noise_scale(y)
        scale[g] = sigma
        if sigma == 0.0:  # constant: one level, no search
            counts[g] = 1
            start[base], end[base] = 0, n
            level[base], slope[base] = y[0], 0.0
            continue
        clipped = np.empty(n)
        if robust:
            clip_to_running_median(y, sigma, min_size, clipped)
        else:
            clipped[:] = y
        centre = 0.5 * (n - 1)
        reference = clipped[n // 2]
        z = np.empty(n)
        for i in range(n):
            z[i] = (clipped[i] - reference) / sigma
        prefix_z = np.zeros(n + 1)
        prefix_zz = np.zeros(n + 1)
        prefix_xz = np.zeros(n + 1)
        if n < 2 * min_size:
            tolerance = fill_prefix_sums(z, 1.0, centre, prefix_z, prefix_zz,
                                         prefix_xz)
            bounds = np.empty(2, dtype=np.int64)
            bounds[0], bounds[1] = 0, n
        else:
            bounds, inflation, phi, tolerance = dependent_search(
                z, centre, min_size, min_drift, beta, mbic, drift, price, tables, dependence,
                prefix_z, prefix_zz, prefix_xz)
            autocorrelation[g] = phi
            inflation_out[g] = inflation
            sigma *= np.sqrt(inflation)
            scale[g] = sigma
        n_segments = bounds.shape[0] - 1
        counts[g] = n_segments
        for k in range(n_segments):
            row = base + k
            s, t = bounds[k], bounds[k + 1]
            length = t - s
            cost, _, kind = segment_cost(prefix_z, prefix_zz, prefix_xz, centre, s, t,
                                         drift and length >= min_drift, price, tolerance)
            start[row], end[row], is_drift[row] = s, t, kind
            level[row], slope[row] = line_fit(clipped, s, t, kind)
            if kind:
                slope_se[row] = sigma / np.sqrt(length * (length * length - 1.0) / 12.0)
            if k == 0:
                continue
            before = bounds[k - 1]
            merged, _, _ = segment_cost(prefix_z, prefix_zz, prefix_xz, centre, before, t,
                                        drift and t - before >= min_drift, price, tolerance)
            left, _, _ = segment_cost(prefix_z, prefix_zz, prefix_xz, centre, before, s,
                                      drift and s - before >= min_drift, price, tolerance)
            evidence[row] = merged - left - cost
            left_length = s - before
            jump[row] = level[row] - (level[row - 1] + slope[row - 1] * left_length)
            jump_se[row] = sigma * np.sqrt(
                prediction_variance(length, kind, 0.0)
                + prediction_variance(left_length, is_drift[row - 1], float(left_length)))
        rows = slice(base, base + n_segments)
        boundary_steps(is_drift[rows], jump[rows], jump_se[rows], sigma, step[rows])
        if refine and drift:
            refine_kinks(prefix_z, prefix_xz, centre, start[rows], end[rows], is_drift[rows],
                         step[rows], min_size, min_drift, tolerance)
            for row in range(base, base + n_segments):
                if not is_drift[row]:  # a level whose end moved: its mean again
                    level[row], _ = line_fit(clipped, start[row], end[row], False)
        refit_ramps(clipped, sigma, start[rows], end[rows], is_drift[rows], step[rows],
                    level[rows], slope[rows], slope_se[rows], ramp_start[rows], ramp_end[rows],
                    ramp_se[rows], refine and drift)
    return (slots, counts, start, end, is_drift, level, slope, slope_se, evidence, jump, jump_se,
            step, ramp_start, ramp_end, ramp_se, scale, beta_out, autocorrelation, inflation_out)
