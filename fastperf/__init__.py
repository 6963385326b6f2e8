"""fastperf: rigorous, fast statistics for performance comparisons.

Numba kernels (``fastperf.kernels``) behind a thin, typed API over Arrow tables. Kernels compile
lazily on first use, so ``import fastperf`` stays cheap.
"""
from fastperf._errors import InputError
from fastperf.readers import read
from fastperf.describe import DescribeResult, describe

__version__ = "0.1.0"

__all__ = ["InputError", "read", "describe", "DescribeResult", "__version__"]
