"""Type stub of fastperf: the public names that `fastperf/__init__.py` imports on first use
(its `EXPORTS`), for type checkers and IDEs. tests/test_architecture.py checks that both name
the same objects from the same modules."""

from fastperf.errors import InputError as InputError
from fastperf.io.read import read as read
from fastperf.stats.describe import describe as describe, DescribeResult as DescribeResult
from fastperf.protocols.compare import compare as compare, CompareResult as CompareResult
from fastperf.protocols.decide import decide as decide, DecideResult as DecideResult
from fastperf.protocols.check import check as check, CheckResult as CheckResult
from fastperf.protocols.speedup import speedup_test as speedup_test
from fastperf.protocols.speedup_report import SpeedupTestResult as SpeedupTestResult
from fastperf.io.speedup_config import read_speedup_config as read_speedup_config
from fastperf.protocols.sparc import sparc as sparc, SparcResult as SparcResult
from fastperf.protocols.hpt import hpt as hpt, HptResult as HptResult
from fastperf.stats.rank_tests import (
    rankdata as rankdata,
    mannwhitneyu as mannwhitneyu,
    MannWhitneyUResult as MannWhitneyUResult,
    wilcoxon as wilcoxon,
    WilcoxonResult as WilcoxonResult,
)
from fastperf.stats.parametric import ttest_ind as ttest_ind, ttest_rel as ttest_rel, ftest as ftest
from fastperf.stats.normality import shapiro as shapiro
from fastperf.stats.ks import ks_2samp as ks_2samp
from fastperf.stats.proportions import (
    proportion_ci as proportion_ci,
    ProportionInterval as ProportionInterval,
    min_benchmarks as min_benchmarks,
)
from fastperf.protocols.aggregate import (
    aggregate_score as aggregate_score,
    AggregateResult as AggregateResult,
)
from fastperf.protocols.planning import (
    plan_runs as plan_runs,
    PlanResult as PlanResult,
    student_coefficients as student_coefficients,
)
from fastperf.designs.anova import (
    anova as anova,
    AnovaResult as AnovaResult,
    contrasts as contrasts,
    ContrastResult as ContrastResult,
    f_oneway as f_oneway,
    FOnewayResult as FOnewayResult,
)
from fastperf.designs.factorial import factorial as factorial, FactorialResult as FactorialResult
from fastperf.designs.fractional import (
    fractional_design as fractional_design,
    FractionalDesign as FractionalDesign,
)
from fastperf.stats.permutation import (
    permutation_test as permutation_test,
    PermutationTestResult as PermutationTestResult,
)
from fastperf.stats.bootstrap import bootstrap as bootstrap, BootstrapResult as BootstrapResult
from fastperf.stats.multitest import (
    multipletests as multipletests,
    MultipleTestsResult as MultipleTestsResult,
    bonferroni_alpha as bonferroni_alpha,
    sidak_alpha as sidak_alpha,
    fwer_bound as fwer_bound,
    e_bh as e_bh,
)
from fastperf.data.simulate import simulate as simulate, SimulatedTable as SimulatedTable
from fastperf.stats.changepoints import (
    changepoints as changepoints,
    ChangepointResult as ChangepointResult,
)

__version__: str
__all__: list[str]
EXPORTS: dict[str, str]
