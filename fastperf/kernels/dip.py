"""Hartigan's dip statistic, batched over CSR segments of sorted values.

The dip of a sample is the largest distance between its empirical distribution function and the
nearest unimodal distribution function (Hartigan & Hartigan 1985, Ann. Statist. 13(1), 70-84).
It is computed by algorithm AS 217 (P. M. Hartigan 1985, Applied Statistics 34(3), 320-325),
which walks the greatest convex minorant (GCM) and the least concave majorant (LCM) of the
empirical distribution between the current ends of the modal interval and narrows the interval
until the dip stops growing, with the corrections R's ``diptest`` (Maechler) made to the
published Fortran: the stop when neither end of the interval moves (without it unimodal data
loop forever, 1994) and Yong Lu's misplaced parenthesis in the distance from a GCM vertex to
the LCM (2003). Distances are kept in units of 1 / (2n) until the end, as there. The minimal dip
is 0, as in Python's ``diptest.dipstat`` (``allow_zero=True``): R's ``dip()``
(``min.is.0=FALSE``) gives max(this dip, 1 / (2n)), which differs only where the walk finds
nothing to measure (a single value, all values equal, evenly spaced values).

The walk is O(n) per segment once the values are sorted: the GCM and LCM change points are
found by one pass each (a stack kept as back links), and each cycle scans only the part of the
interval it drops.
"""
from __future__ import annotations

import math

import numpy as np

from fastperf.kernels.builds import group_kernel, njit, prange

#: Status codes returned per segment; ``STATUS_MESSAGES[code]`` is the text the API reports.
OK, EMPTY, NOT_FINITE, NOT_SORTED = 0, 1, 2, 3
STATUS_MESSAGES = (
    "ok",
    "no values",
    "NaN or infinite value in input",
    "values not sorted",
)


@njit(cache=True)
def _hull_links(x, minorant, majorant) -> None:
    """The back links of the GCM (``minorant``) and the LCM (``majorant``) of sorted ``x``.

    ``minorant[j]`` is the GCM vertex before j of the points 0..j of the empirical distribution
    (its last point j a vertex); ``majorant[k]`` the LCM vertex after k of the points k..n-1.
    Following the links from any point walks that hull's vertices (AS 217's MN and MJ).
    """
    n = x.shape[0]
    # a stack walk kept in registers: `top` (the vertex on top, its value `x_top`) and
    # `below` (the one under it, its value `x_below`); a link is read only on a pop
    minorant[0] = 0
    below = 0
    x_below = x[0]
    for j in range(1, n):
        x_j = x[j]
        top = j - 1
        x_top = x[top]
        while not (top == 0 or (x_j - x_top) * (top - below) < (x_top - x_below) * (j - top)):
            top = below
            x_top = x_below
            below = minorant[top]
            x_below = x[below]
        minorant[j] = top
        below = top
        x_below = x_top
    last = n - 1
    majorant[last] = last
    below = last
    x_below = x[last]
    for k in range(n - 2, -1, -1):
        x_k = x[k]
        top = k + 1
        x_top = x[top]
        while not (top == last
                   or (x_k - x_top) * (top - below) < (x_top - x_below) * (k - top)):
            top = below
            x_top = x_below
            below = majorant[top]
            x_below = x[below]
        majorant[k] = top
        below = top
        x_below = x_top


@njit(cache=True)
def dip_of_sorted(x, minorant, majorant, gcm, lcm) -> float:
    """The dip of the sorted, finite values ``x`` (0.0 for fewer than 2 distinct values).

    Parameters
    ----------
    x : float64 array, sorted ascending, finite, of length n >= 1.
    minorant, majorant, gcm, lcm : int64 work arrays of length at least n (overwritten).

    Returns
    -------
    float
        The dip, in [0, 1/4].
    """
    n = x.shape[0]
    if n < 2 or x[n - 1] == x[0]:
        return 0.0
    _hull_links(x, minorant, majorant)
    low = 0
    high = n - 1
    dip = 0.0  # 2n times the dip until the end
    while True:
        # the GCM's vertices from high down to low, the LCM's from low up to high
        gcm[0] = high
        g = 0
        while gcm[g] > low:
            gcm[g + 1] = minorant[gcm[g]]
            g += 1
        gcm_count = g + 1
        lcm[0] = low
        h = 0
        while lcm[h] < high:
            lcm[h + 1] = majorant[lcm[h]]
            h += 1
        lcm_count = h + 1

        # the largest distance between the two hulls, walking both from the ends inwards;
        # best_g, best_h: where it was met (the new ends of the modal interval)
        best_g = gcm_count - 1
        best_h = lcm_count - 1
        distance = 0.0
        if gcm_count != 2 or lcm_count != 2:
            ig = gcm_count - 2
            ih = 1
            while True:
                gcm_at = gcm[ig]
                lcm_at = lcm[ih]
                if gcm_at > lcm_at:  # the next point is the LCM's: its distance to the GCM
                    gcm_next = gcm[ig + 1]
                    gap = ((lcm_at - gcm_next + 1) - (x[lcm_at] - x[gcm_next])
                           * (gcm_at - gcm_next) / (x[gcm_at] - x[gcm_next]))
                    ih += 1
                    if gap >= distance:
                        distance = gap
                        best_g = ig + 1
                        best_h = ih - 1
                else:  # the next point is the GCM's: its distance to the LCM
                    lcm_before = lcm[ih - 1]
                    gap = ((x[gcm_at] - x[lcm_before]) * (lcm_at - lcm_before)
                           / (x[lcm_at] - x[lcm_before]) - (gcm_at - lcm_before - 1))
                    ig -= 1
                    if gap >= distance:
                        distance = gap
                        best_g = ig + 1
                        best_h = ih
                if ig < 0:
                    ig = 0
                if ih > lcm_count - 1:
                    ih = lcm_count - 1
                if gcm[ig] == lcm[ih]:
                    break
        if distance < dip:
            break

        # the dips of the parts dropped: the GCM below the new low, the LCM above the new high
        dip_low = 0.0
        for j in range(best_g, gcm_count - 1):
            worst = 1.0
            first = gcm[j + 1]
            last = gcm[j]
            if last - first > 1 and x[last] != x[first]:
                slope = (last - first) / (x[last] - x[first])
                for r in range(first, last + 1):
                    worst = max(worst, (r - first + 1) - (x[r] - x[first]) * slope)
            dip_low = max(dip_low, worst)
        dip_high = 0.0
        for k in range(best_h, lcm_count - 1):
            worst = 1.0
            first = lcm[k]
            last = lcm[k + 1]
            if last - first > 1 and x[last] != x[first]:
                slope = (last - first) / (x[last] - x[first])
                for r in range(first, last + 1):
                    worst = max(worst, (x[r] - x[first]) * slope - (r - first - 1))
            dip_high = max(dip_high, worst)
        dip = max(dip, dip_low, dip_high)

        if low == gcm[best_g] and high == lcm[best_h]:
            break  # neither end moved (Maechler 1994: the published code loops forever here)
        low = gcm[best_g]
        high = lcm[best_h]
    return dip / (2.0 * n)


@njit(cache=True)
def segment_status(values, start, end) -> int:
    """`OK`, or the status code of the first defect of ``values[start:end]`` (not empty): a NaN
    or infinite value (`NOT_FINITE`, which wins), else a value below the one before it
    (`NOT_SORTED`)."""
    code = OK
    for j in range(start, end):
        if not math.isfinite(values[j]):
            return NOT_FINITE
        if j > start and values[j] < values[j - 1]:
            code = NOT_SORTED
    return code


@njit(cache=True)
def null_quantile(quantiles, lower, upper, weight, column) -> float:
    """The table's quantile `column` at n between its rows `lower` and `upper`: linear, with
    `weight` the share of the way from one to the other."""
    return (quantiles[lower, column]
            + weight * (quantiles[upper, column] - quantiles[lower, column]))


@njit(cache=True)
def dip_pvalue(dip, n, sizes, probabilities, quantiles) -> float:
    """P(D_n >= dip) under the uniform null, read off the simulated table of the quantiles of
    sqrt(n) D_n (`fastperf.engine.dip`'s module docstring gives the method).

    Parameters
    ----------
    dip : float
        The dip.
    n : float
        The sample size.
    sizes, probabilities : numpy.ndarray of float64
        The table's sample sizes (ascending) and probabilities (ascending).
    quantiles : numpy.ndarray of float64, shape (sizes, probabilities)
        The quantiles of sqrt(n) D_n.

    Returns
    -------
    float
        In [1 - max(probabilities), 1]; NaN where the dip is NaN or n < ``sizes[0]``.

    Notes
    -----
    The row of n is linear in n between the table's sizes (the last size beyond them); the
    probability linear in sqrt(n) d between the quantiles around it, the first of tied ones,
    clipped to the table's ends. `dip_pvalues` applies it to a batch of dips.
    """
    if math.isnan(dip) or not n >= sizes[0]:
        return np.nan
    last_size = sizes.shape[0] - 1
    upper = 0
    while upper <= last_size and sizes[upper] < n:
        upper += 1
    upper = min(upper, last_size)
    lower = upper if sizes[upper] <= n else upper - 1
    span = sizes[upper] - sizes[lower]
    weight = (min(n, sizes[last_size]) - sizes[lower]) / span if span > 0 else 0.0
    scaled = np.sqrt(n) * dip
    below = 0  # quantiles strictly below sqrt(n) d
    for column in range(probabilities.shape[0]):
        if null_quantile(quantiles, lower, upper, weight, column) < scaled:
            below += 1
    last = probabilities.shape[0] - 1
    if below == 0:
        return 1.0 - probabilities[0]
    if below > last:
        return 1.0 - probabilities[last]
    right = below
    left = below - 1
    q_left = null_quantile(quantiles, lower, upper, weight, left)
    q_right = null_quantile(quantiles, lower, upper, weight, right)
    gap = q_right - q_left
    fraction = (scaled - q_left) / gap if gap > 0 else 1.0
    fraction = min(max(fraction, 0.0), 1.0)
    return 1.0 - (probabilities[left] + fraction * (probabilities[right] - probabilities[left]))


@njit(cache=True)
def dip_pvalues(dips, sizes, table_sizes, probabilities, quantiles) -> np.ndarray:
    """`dip_pvalue` of each dip, with the sample sizes `sizes` (float64) and the table."""
    out = np.empty(dips.shape[0])
    for k in range(dips.shape[0]):
        out[k] = dip_pvalue(dips[k], sizes[k], table_sizes, probabilities, quantiles)
    return out


@group_kernel(min_rows=500_000, inputs=2)
def dip_statistics(values, offsets) -> tuple[np.ndarray, np.ndarray]:
    """The dip of every segment of sorted values, and a status code.

    Parameters
    ----------
    values : float64 array, the segments one after another, each sorted ascending (read only).
    offsets : int64 CSR offsets: segment ``i`` is ``values[offsets[i]:offsets[i + 1]]``.

    Returns
    -------
    dip : float64 array, one entry per segment; NaN where the status is not ``OK``.
    status : int8 array, an index into `STATUS_MESSAGES`.

    Notes
    -----
    Each segment's work arrays are its own slice of four arrays as long as ``values``, so the
    segments share nothing and the loop over them runs in parallel.
    """
    n_segments = offsets.shape[0] - 1
    dip = np.full(n_segments, np.nan)
    status = np.zeros(n_segments, dtype=np.int8)
    total = values.shape[0]
    minorant = np.empty(total, dtype=np.int64)
    majorant = np.empty(total, dtype=np.int64)
    gcm = np.empty(total, dtype=np.int64)
    lcm = np.empty(total, dtype=np.int64)
    for s in prange(n_segments):
        start = offsets[s]
        end = offsets[s + 1]
        if end <= start:
            status[s] = EMPTY
            continue
        code = segment_status(values, start, end)
        if code != OK:
            status[s] = code
            continue
        dip[s] = dip_of_sorted(values[start:end], minorant[start:end], majorant[start:end],
                               gcm[start:end], lcm[start:end])
    return dip, status
