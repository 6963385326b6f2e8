"""fastperf: rigorous, fast statistics for performance comparisons.

Numba kernels (``fastperf.kernels``) behind a thin, typed API over Arrow tables. Kernels compile
lazily on first use, so ``import fastperf`` stays cheap.
"""
from fastperf.errors import InputError
from fastperf.io.read import read
from fastperf.protocols.aggregate import AggregateResult, aggregate_score
from fastperf.protocols.compare import CompareResult, compare
from fastperf.designs.anova import AnovaResult, ContrastResult, FOnewayResult, anova, contrasts, f_oneway
from fastperf.stats.bootstrap import BootstrapResult, bootstrap
from fastperf.stats.describe import DescribeResult, describe
from fastperf.designs.factorial import FactorialResult, factorial
from fastperf.designs.fractional import FractionalDesign, fractional_design
from fastperf.stats.ks import ks_2samp
from fastperf.stats.multitest import (
    MultipleTestsResult, bonferroni_alpha, fwer_bound, multipletests, sidak_alpha,
)
from fastperf.stats.normality import shapiro
from fastperf.stats.parametric import ftest, ttest_ind, ttest_rel
from fastperf.stats.permutation import PermutationTestResult, permutation_test
from fastperf.protocols.planning import PlanResult, plan_runs, student_coefficients
from fastperf.stats.proportions import ProportionInterval, min_benchmarks, proportion_ci
from fastperf.protocols.hpt import HptResult, hpt
from fastperf.protocols.sparc import SparcResult, sparc
from fastperf.stats.rank_tests import MannWhitneyUResult, WilcoxonResult, mannwhitneyu, rankdata, wilcoxon
from fastperf.io.speedup_config import read_speedup_config
from fastperf.protocols.speedup import speedup_test
from fastperf.protocols.speedup_report import SpeedupTestResult
from fastperf.data.simulate import SimulatedTable, simulate

__version__ = "0.1.0"

__all__ = [
    "InputError", "read", "describe", "DescribeResult", "compare", "CompareResult",
    "speedup_test", "SpeedupTestResult", "read_speedup_config",
    "sparc", "SparcResult", "hpt", "HptResult",
    "rankdata", "mannwhitneyu", "MannWhitneyUResult", "wilcoxon", "WilcoxonResult",
    "ttest_ind", "ttest_rel", "ftest", "shapiro", "ks_2samp",
    "proportion_ci", "ProportionInterval", "min_benchmarks", "aggregate_score", "AggregateResult",
    "plan_runs", "PlanResult", "student_coefficients",
    "anova", "AnovaResult", "contrasts", "ContrastResult", "f_oneway", "FOnewayResult",
    "factorial", "FactorialResult", "fractional_design", "FractionalDesign",
    "permutation_test", "PermutationTestResult", "bootstrap", "BootstrapResult",
    "multipletests", "MultipleTestsResult", "bonferroni_alpha", "sidak_alpha", "fwer_bound",
    "simulate", "SimulatedTable",
    "__version__",
]
