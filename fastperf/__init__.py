"""fastperf: rigorous, fast statistics for performance comparisons.

Numba kernels (``fastperf.kernels``) behind a thin, typed API over Arrow tables. ``import
fastperf`` loads nothing but this file: each public name is imported from its module on first
use (PEP 562 module ``__getattr__``), and kernels compile (or load from Numba's disk cache) on
their first call, so a process pays only for what it uses (see docs/performance.md).
"""
from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the names below, for type checkers and IDEs; at run time see __getattr__
    from fastperf.errors import InputError
    from fastperf.io.read import read
    from fastperf.protocols.aggregate import AggregateResult, aggregate_score
    from fastperf.protocols.compare import CompareResult, compare
    from fastperf.designs.anova import AnovaResult, ContrastResult, FOnewayResult, anova, contrasts, f_oneway
    from fastperf.stats.bootstrap import BootstrapResult, bootstrap
    from fastperf.stats.changepoints import ChangepointResult, changepoints
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
    "simulate", "SimulatedTable", "changepoints", "ChangepointResult",
    "__version__",
]

#: The module that defines each public name (imported on first use).
EXPORTS = {name: module for module, names in {
    "fastperf.errors": "InputError",
    "fastperf.io.read": "read",
    "fastperf.protocols.aggregate": "AggregateResult aggregate_score",
    "fastperf.protocols.compare": "CompareResult compare",
    "fastperf.designs.anova": "AnovaResult ContrastResult FOnewayResult anova contrasts f_oneway",
    "fastperf.stats.bootstrap": "BootstrapResult bootstrap",
    "fastperf.stats.changepoints": "ChangepointResult changepoints",
    "fastperf.stats.describe": "DescribeResult describe",
    "fastperf.designs.factorial": "FactorialResult factorial",
    "fastperf.designs.fractional": "FractionalDesign fractional_design",
    "fastperf.stats.ks": "ks_2samp",
    "fastperf.stats.multitest": "MultipleTestsResult bonferroni_alpha fwer_bound multipletests "
                                "sidak_alpha",
    "fastperf.stats.normality": "shapiro",
    "fastperf.stats.parametric": "ftest ttest_ind ttest_rel",
    "fastperf.stats.permutation": "PermutationTestResult permutation_test",
    "fastperf.protocols.planning": "PlanResult plan_runs student_coefficients",
    "fastperf.stats.proportions": "ProportionInterval min_benchmarks proportion_ci",
    "fastperf.protocols.hpt": "HptResult hpt",
    "fastperf.protocols.sparc": "SparcResult sparc",
    "fastperf.stats.rank_tests": "MannWhitneyUResult WilcoxonResult mannwhitneyu rankdata "
                                 "wilcoxon",
    "fastperf.io.speedup_config": "read_speedup_config",
    "fastperf.protocols.speedup": "speedup_test",
    "fastperf.protocols.speedup_report": "SpeedupTestResult",
    "fastperf.data.simulate": "SimulatedTable simulate",
}.items() for name in names.split()}


def __getattr__(name: str):
    """Import a public name from its module on first use (PEP 562)."""
    module = EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'fastperf' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(EXPORTS))
