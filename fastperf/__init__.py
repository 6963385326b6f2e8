"""fastperf: rigorous, fast statistics for performance comparisons.

Numba kernels (``fastperf.kernels``) behind a thin, typed API over Arrow tables. `EXPORTS` is
the one list of public names; each is imported from its module on first use (PEP 562 module
``__getattr__``), and kernels load their native builds (or compile) on their first call, so a
process pays only for what it uses (see docs/performance.md).

Lazy, not eager: importing every public module takes about 0.4 s, over the 0.25 s goal (0.02 s so).
"""
from __future__ import annotations

from importlib import import_module

__version__ = "0.1.0"

#: Each public name and the module that defines it, in the order of `__all__`.
EXPORTS = {
    "InputError": "fastperf.errors",
    "read": "fastperf.io.read",
    "describe": "fastperf.stats.describe",
    "DescribeResult": "fastperf.stats.describe",
    "compare": "fastperf.protocols.compare",
    "CompareResult": "fastperf.protocols.compare",
    "decide": "fastperf.protocols.decide",
    "DecideResult": "fastperf.protocols.decide",
    "check": "fastperf.protocols.check",
    "CheckResult": "fastperf.protocols.check",
    "speedup_test": "fastperf.protocols.speedup",
    "SpeedupTestResult": "fastperf.protocols.speedup_report",
    "read_speedup_config": "fastperf.io.speedup_config",
    "sparc": "fastperf.protocols.sparc",
    "SparcResult": "fastperf.protocols.sparc",
    "hpt": "fastperf.protocols.hpt",
    "HptResult": "fastperf.protocols.hpt",
    "rankdata": "fastperf.stats.rank_tests",
    "mannwhitneyu": "fastperf.stats.rank_tests",
    "MannWhitneyUResult": "fastperf.stats.rank_tests",
    "wilcoxon": "fastperf.stats.rank_tests",
    "WilcoxonResult": "fastperf.stats.rank_tests",
    "ttest_ind": "fastperf.stats.parametric",
    "ttest_rel": "fastperf.stats.parametric",
    "ftest": "fastperf.stats.parametric",
    "shapiro": "fastperf.stats.normality",
    "ks_2samp": "fastperf.stats.ks",
    "proportion_ci": "fastperf.stats.proportions",
    "ProportionInterval": "fastperf.stats.proportions",
    "min_benchmarks": "fastperf.stats.proportions",
    "aggregate_score": "fastperf.protocols.aggregate",
    "AggregateResult": "fastperf.protocols.aggregate",
    "plan_runs": "fastperf.protocols.planning",
    "PlanResult": "fastperf.protocols.planning",
    "student_coefficients": "fastperf.protocols.planning",
    "anova": "fastperf.designs.anova",
    "AnovaResult": "fastperf.designs.anova",
    "contrasts": "fastperf.designs.anova",
    "ContrastResult": "fastperf.designs.anova",
    "f_oneway": "fastperf.designs.anova",
    "FOnewayResult": "fastperf.designs.anova",
    "factorial": "fastperf.designs.factorial",
    "FactorialResult": "fastperf.designs.factorial",
    "fractional_design": "fastperf.designs.fractional",
    "FractionalDesign": "fastperf.designs.fractional",
    "permutation_test": "fastperf.stats.permutation",
    "PermutationTestResult": "fastperf.stats.permutation",
    "bootstrap": "fastperf.stats.bootstrap",
    "BootstrapResult": "fastperf.stats.bootstrap",
    "multipletests": "fastperf.stats.multitest",
    "MultipleTestsResult": "fastperf.stats.multitest",
    "bonferroni_alpha": "fastperf.stats.multitest",
    "sidak_alpha": "fastperf.stats.multitest",
    "fwer_bound": "fastperf.stats.multitest",
    "e_bh": "fastperf.stats.multitest",
    "simulate": "fastperf.data.simulate",
    "SimulatedTable": "fastperf.data.simulate",
    "changepoints": "fastperf.stats.changepoints",
    "ChangepointResult": "fastperf.stats.changepoints",
}

__all__ = [*EXPORTS, "__version__"]


def __getattr__(name: str):
    """Import a public name from its module on first use (PEP 562)."""
    module = EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'fastperf' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The public names and the module's own attributes (``__version__``, ``__doc__``...), not
    the helpers this module imports (what tab completion offers)."""
    own = {name for name in globals() if name.startswith("__")}
    return sorted(set(__all__) | {"EXPORTS"} | own)
