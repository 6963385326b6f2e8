"""What the exact rank tests would cost before they start: the steps and memory of their null
distributions, and the refusal of a ``method="exact"`` call beyond the budget (`check_budget`).

Shared by the rank-sum and signed-rank engines (`fastperf.engine.ranks`).
"""
from __future__ import annotations

import numpy as np

__all__ = ["EXACT_MAX_OPERATIONS", "rank_sum_exact_cost", "signed_rank_exact_cost",
           "check_exact_budget", "exact_chunks", "csr_slice"]


#: ``method="exact"`` refuses, before any work, a call whose exact distributions would take
#: more than this many elementary steps (`check_exact_budget`): about 30 s at ~1 ns a step.
#: Measured on one core: the untied rank-sum 1000 vs 1000 (1e9 steps) 0.8 s, 2000 vs 2000
#: (8e9) 7 s; the signed-rank n = 4000 (5.3e9) 2.9 s. So the untied rank-sum runs exactly up to
#: about 3100 vs 3100, the signed-rank up to n of about 7100; ``method="auto"`` stays far below
#: (`fastperf.engine.ranks.AUTO_EXACT_MAX_COST` and ``AUTO_EXACT_MAX_TIED_COST``).
EXACT_MAX_OPERATIONS = 3 * 10 ** 10


def rank_sum_exact_cost(m, n) -> tuple[np.ndarray, np.ndarray]:
    """(steps, bytes) of the untied rank-sum null distributions of sizes m and n (arrays;
    `rank_sum_null_pmf` and its cdf): about min(m, n)·m·n ring updates; four float64 arrays of
    floor(mn/2) + 1 entries (counts, partial sums, due lists, the cdf) and the rings, about
    min(m, n)·(m + n) floats. In float: no overflow."""
    a = np.minimum(m, n).astype(float)
    b = np.maximum(m, n).astype(float)
    return a * a * b, 32.0 * (np.floor(a * b / 2) + 1) + 8.0 * a * (a + b)


def signed_rank_exact_cost(n) -> tuple[np.ndarray, np.ndarray]:
    """(steps, bytes) of the signed-rank null distributions of n values (arrays): about n³/12
    steps untied (the product of n coin factors on the lower half of its range); at most
    floor(n(n+1)/2) + 1 float64 entries, untied or with ties (the cdf of an untied one adds
    half that again)."""
    n = np.asarray(n).astype(float)
    return n ** 3 / 12.0, 8.0 * (np.floor(n * (n + 1) / 2) + 1)


def check_exact_budget(test: str, steps: np.ndarray, memory: np.ndarray, describe) -> None:
    """Refuse ``method="exact"`` (an `InputError` from `check_budget`, before any work) when the
    exact distributions it needs take more than `EXACT_MAX_OPERATIONS` steps in all, or more
    memory at once than the machine has.

    Parameters
    ----------
    test : str
        The test, named in the message (``"the exact rank-sum test"``).
    steps, memory : numpy.ndarray
        The estimated steps and bytes of each distribution the call computes.
    describe : callable
        ``describe(i)``: what distribution i is (its sample sizes, ties), named in the message
        for the costliest one.
    """
    from fastperf.data.budget import check_budget, format_bytes, physical_memory

    if steps.size == 0:
        return
    total_memory = physical_memory()
    over_memory = total_memory is not None and memory.max() > total_memory
    worst = int(np.argmax(memory if over_memory else steps))
    detail = (f"the costliest: {describe(worst)}, about {steps[worst]:.3g} steps"
              + (f" and {format_bytes(memory[worst])}" if memory[worst] > 0 else ""))
    if steps.size > 1:
        detail += f"; {steps.size} exact distributions in all"
    check_budget(test, "method", "exact", bytes_needed=int(memory.max()),
                 operations=float(steps.sum()), max_operations=EXACT_MAX_OPERATIONS,
                 detail=detail,
                 remedy="use method='asymptotic' (the normal approximation with the tie "
                        "correction) or method='auto' (exact only where it is cheap)")


def exact_chunks(label: str, n_untied: int, n_tied: int, progress, costs):
    """The exact tails' work in chunks, with a progress bar (`fastperf.progress`) when wanted.

    The work is `n_untied` distinct untied distributions then `n_tied` tie-conditional tails;
    without a bar it is one chunk (every tied tail in one kernel call). With one, the chunks
    hold near-equal estimated steps (`costs()`, called only then: an array of the steps of each
    item, untied first), so a few large distributions do not stall the bar between chunks.

    Yields
    ------
    (int, int), (int, int)
        The chunk's untied distributions [start, stop) and tied tails [start, stop).
    """
    import math

    from fastperf.progress import progress_chunks, wants_progress

    weights = costs() if n_untied + n_tied and wants_progress(progress, math.inf) else None
    steps = float(np.sum(weights)) if weights is not None else 0.0
    for a, b in progress_chunks(label, n_untied + n_tied, progress if weights is not None
                                else False, steps, unit="distributions", weights=weights):
        yield (min(a, n_untied), min(b, n_untied)), (max(a - n_untied, 0),
                                                     max(b - n_untied, 0))


def csr_slice(values: np.ndarray, offsets: np.ndarray, start: int, stop: int):
    """Segments [start, stop) of a CSR batch: their values and offsets rebased to 0."""
    return values[offsets[start]:offsets[stop]], offsets[start:stop + 1] - offsets[start]
