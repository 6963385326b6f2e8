"""Exact distributions of the rank-sum (Mann-Whitney) and signed-rank (Wilcoxon) statistics: the
entry points, gathered from the modules that implement them.

- untied null distributions (whole, lower half): `rank_sum_null_pmf`, `signed_rank_null_pmf`
  (`fastperf.kernels.rank_null`; Löffler 1983 for U);
- exact tails conditional on ties, batched over groups: `rank_sum_tie_tails` (network
  algorithm, Mehta, Patel & Tsiatis 1984; `fastperf.kernels.rank_sum_ties`, its row arithmetic
  in `fastperf.kernels.network_rows`) and `signed_rank_tie_tails`
  (`fastperf.kernels.signed_rank_ties`);
- their estimated work, for choosing exact vs asymptotic: `estimated_tie_tail_cost`,
  `tie_tail_costs` (`fastperf.kernels.tie_costs`).

New code imports from those modules directly.
"""
from fastperf.kernels.rank_null import rank_sum_null_pmf, signed_rank_null_pmf
from fastperf.kernels.rank_sum_ties import DROP_RTOL, DROP_SCALE, rank_sum_network, rank_sum_tie_tails
from fastperf.kernels.signed_rank_ties import signed_rank_tie_tails
from fastperf.kernels.tie_costs import estimated_tie_tail_cost, tie_tail_costs

__all__ = [
    "rank_sum_null_pmf", "signed_rank_null_pmf", "rank_sum_tie_tails", "rank_sum_network",
    "signed_rank_tie_tails", "estimated_tie_tail_cost", "tie_tail_costs", "DROP_RTOL",
    "DROP_SCALE",
]
