"""fastperf: rigorous, fast statistics for performance comparisons.

Numba kernels (``fastperf.kernels``) behind a thin, typed API over Arrow tables. Kernels compile
lazily on first use, so ``import fastperf`` stays cheap.
"""
from fastperf._errors import InputError
from fastperf.readers import read
from fastperf.describe import DescribeResult, describe
from fastperf.normality import shapiro
from fastperf.parametric import ftest, ttest_ind, ttest_rel

__version__ = "0.1.0"

__all__ = [
    "InputError", "read", "describe", "DescribeResult", "ttest_ind", "ttest_rel", "ftest", "shapiro",
    "__version__",
]
