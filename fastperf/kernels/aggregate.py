"""Per-run aggregate scores: one pass accumulating every (variant, run) cell."""
import numpy as np

from fastperf.kernels.builds import group_kernel, prange


@group_kernel(min_rows=5_000_000)
def per_run_totals(grouped, offsets, variant_offsets, positions, group_weight, n_positions,
                   geometric) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Weighted sums of the measurements (or their logs) of each (variant, run) cell.

    Parameters
    ----------
    grouped, offsets : the values of each (variant, benchmark) group, CSR.
    variant_offsets : int64, the groups of variant k are ``variant_offsets[k]:[k+1]``.
    positions : int32 run index of each value (in group order), -1 for a value whose run is
        unknown (null: left out, not even seen); empty: the value's position within its group.
    group_weight : float64, the weight of each group's benchmark (normalised per variant).
    n_positions : int, the number of run indices.
    geometric : bool, sum ``w * log(x)`` instead of ``w * x``.

    Returns
    -------
    total : float64 (n_variants * n_positions), the weighted sums of non-NaN values.
    count : int64, the number of non-NaN values in each cell.
    seen : int64, the number of values (NaN included) in each cell.

    Notes
    -----
    Pakhomov (seed 004), Table 5: the score of run i is f over every benchmark's run i (the
    weighted geometric mean as exp of the weighted sum of logs).
    """
    n_variants = variant_offsets.shape[0] - 1
    total = np.zeros(n_variants * n_positions)
    count = np.zeros(n_variants * n_positions, dtype=np.int64)
    seen = np.zeros(n_variants * n_positions, dtype=np.int64)
    by_position = positions.shape[0] == 0
    for k in prange(n_variants):  # the cells of different variants are disjoint
        base = k * n_positions
        for g in range(variant_offsets[k], variant_offsets[k + 1]):
            w = group_weight[g]
            for j in range(offsets[g], offsets[g + 1]):
                if not by_position and positions[j] < 0:
                    continue
                cell = base + (j - offsets[g] if by_position else positions[j])
                seen[cell] += 1
                v = grouped[j]
                if v == v:
                    total[cell] += w * (np.log(v) if geometric else v)
                    count[cell] += 1
    return total, count, seen
