"""scipy's special functions, without the cost of importing `scipy.special`.

fastperf computes its distribution tails and quantiles with scipy's special-function ufuncs: the
normal (``ndtr``, ``ndtri``), Student (``stdtr``, ``stdtrit``), F (``fdtr``, ``fdtrc``,
``fdtri``), chi-square (``chdtri``), binomial (``bdtr``) and Kolmogorov-Smirnov (``smirnov``)
distribution functions, the log-gamma function and the inverse regularised incomplete beta
function. They are Cephes (Moshier, *Methods and Programs for Mathematical Functions*, 1989) and
Boost.Math code, compiled into scipy's extension module ``scipy.special._ufuncs``.

`import scipy.special` takes 0.1-0.25 s, most of a fresh process's first call: the package's
``__init__`` builds its array-API layer, which clones the whole ``numpy`` namespace and so imports
``numpy.f2py``, ``numpy.testing`` and others. The extension module itself loads in about 7 ms.
This module loads it alone: it puts an unexecuted module object for ``scipy.special`` (made from
the package's own import spec) in `sys.modules` while the import system loads
``scipy.special._ufuncs`` and the compiled modules it needs, then takes that placeholder out.

The functions are the very objects that `scipy.special` exports (``scipy.special.ndtr is
fastperf.special_functions.ndtr``; `tests/test_special_functions.py` checks it), so results are
bit-identical to calling scipy. A later ``import scipy.special`` runs the package's ``__init__`` as
usual and reuses the compiled modules already loaded; the only trace is that the private
submodules loaded here (``_ufuncs_cxx``, ``_special_ufuncs``, ``_gufuncs``, ...) are not bound as
attributes of the package, where a normal import binds them (``from scipy.special import
_gufuncs`` still works).

The placeholder is only used while the process runs a single Python thread, so that no other
thread can import ``scipy.special`` meanwhile; with more threads, where ``scipy.special`` is
already imported, or if loading alone fails (another scipy layout), this module imports
`scipy.special` the usual way.

Names are looked up on first use (``from fastperf.special_functions import ndtr`` inside the
function that needs it), so importing this module loads nothing.
"""
from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
from types import ModuleType
from typing import Any

__all__ = ["FUNCTIONS", "special_functions_module", "loaded_alone"]

#: The functions this module gives, all ufuncs of ``scipy.special._ufuncs``.
FUNCTIONS = ("ndtr", "ndtri", "stdtr", "stdtrit", "fdtr", "fdtrc", "fdtri", "chdtri", "bdtr",
             "smirnov", "gammaln", "betaincinv", "betainccinv")
EXTENSION = "scipy.special._ufuncs"
PACKAGE = "scipy.special"

_lock = threading.Lock()
_module: ModuleType | None = None
_alone = False


def loaded_alone() -> bool:
    """Whether the functions were loaded without executing `scipy.special`'s ``__init__``."""
    return _alone


def _load_alone() -> ModuleType:
    """``scipy.special._ufuncs``, loaded under an unexecuted placeholder of its package."""
    importlib.import_module("scipy")
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None:
        raise ImportError(f"no {PACKAGE}")
    placeholder = importlib.util.module_from_spec(spec)
    sys.modules[PACKAGE] = placeholder
    try:
        return importlib.import_module(EXTENSION)
    finally:
        if sys.modules.get(PACKAGE) is placeholder:
            del sys.modules[PACKAGE]


def special_functions_module() -> ModuleType:
    """The module holding the ufuncs of `FUNCTIONS`, loaded once per process.

    ``scipy.special._ufuncs`` loaded alone where that is safe (one Python thread,
    ``scipy.special`` not yet imported), otherwise `scipy.special` itself.
    """
    global _module, _alone
    with _lock:
        if _module is None:
            module = None
            if PACKAGE not in sys.modules and threading.active_count() == 1:
                try:
                    module = _load_alone()
                    _alone = all(callable(getattr(module, name, None)) for name in FUNCTIONS)
                except Exception:  # another scipy layout: the usual import below
                    module = None
            if not _alone:
                module = importlib.import_module(PACKAGE)
            _module = module
        return _module


def __getattr__(name: str) -> Any:
    """The ufunc `name` of `FUNCTIONS` (PEP 562: looked up on first use)."""
    if name in FUNCTIONS:
        return getattr(special_functions_module(), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
