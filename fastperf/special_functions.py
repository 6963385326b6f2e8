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

The functions are the very objects that `scipy.special` exports (``special_function("ndtr") is
scipy.special.ndtr``; `tests/test_special_functions.py` checks it), so results are bit-identical
to calling scipy. A later ``import scipy.special`` runs the package's ``__init__`` as usual and
reuses the compiled modules already loaded; a one-shot finder (`SubmoduleBinder`) binds those as
attributes of the package first, as a plain import would have, so the package is the same as in a
process that never loaded them alone.

The placeholder is only used where nothing else can import ``scipy.special`` while it is there:
the process runs a single Python thread, and signals are held back for those milliseconds. With
more threads, where ``scipy.special`` is already imported, with scipy's array-API dispatch on
(``SCIPY_ARRAY_API``: scipy.special then exports wrappers), or if loading alone fails (another
scipy layout), this module imports `scipy.special` the usual way.

Call sites ask for a function where they need it (``ndtr = special_function("ndtr")`` inside the
function), so importing this module loads nothing. The functions are not attributes of this
module: pickle looks ufuncs up by name in `sys.modules`, and must keep finding them in scipy.
"""
from __future__ import annotations

import importlib
import importlib.util
import os
import signal
import sys
import threading
from types import ModuleType
from typing import Any

__all__ = ["FUNCTIONS", "special_function", "special_functions_module", "loaded_alone",
           "SubmoduleBinder"]

#: The functions this module gives, all ufuncs of ``scipy.special._ufuncs``.
FUNCTIONS = ("ndtr", "ndtri", "stdtr", "stdtrit", "fdtr", "fdtrc", "fdtri", "chdtri", "bdtr",
             "smirnov", "gammaln", "betaincinv", "betainccinv")
EXTENSION = "scipy.special._ufuncs"
PACKAGE = "scipy.special"

_lock = threading.RLock()
_loading = False
_module: ModuleType | None = None
_alone = False


class SubmoduleBinder:
    """Binds submodules of ``scipy.special`` loaded alone onto the package when it is imported.

    A meta-path finder (PEP 451: a ``find_spec`` method), as `fastperf.cli`'s pandas finder.

    A plain import binds each submodule it loads as an attribute of its parent package. The
    submodules loaded under the placeholder were bound to the placeholder, and a later import
    of the package finds them in `sys.modules` without binding them again (so
    ``import scipy.special._gufuncs; scipy.special._gufuncs`` would fail). This finder, first
    on `sys.meta_path` until that import, wraps the loader of the spec the other finders give
    for ``scipy.special``. When the package's ``__init__`` is about to run, the wrapper takes the
    finder off `sys.meta_path`, gives the new module back its own loader and binds the
    submodules on it. (A spec found without an import, ``importlib.util.find_spec``, leaves the
    finder in place for the import.)
    """

    def __init__(self, submodules: dict[str, ModuleType]):
        self.submodules = submodules

    def find_spec(self, fullname: str, path: Any = None, target: Any = None):
        if fullname != PACKAGE:
            return None
        for finder in sys.meta_path:
            if finder is self:
                continue
            find_spec = getattr(finder, "find_spec", None)
            spec = find_spec(fullname, path, target) if find_spec is not None else None
            if spec is not None:
                break
        else:
            return None
        if spec.loader is not None and hasattr(spec.loader, "exec_module"):
            spec.loader = _BindingLoader(spec.loader, self)
        return spec


class _BindingLoader:
    """`SubmoduleBinder`'s loader: binds, restores the real loader, runs the real one."""

    def __init__(self, loader: Any, binder: SubmoduleBinder):
        self.loader = loader
        self.binder = binder

    def create_module(self, spec: Any):
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        if self.binder in sys.meta_path:
            sys.meta_path.remove(self.binder)
        module.__loader__ = module.__spec__.loader = self.loader
        for name, submodule in self.binder.submodules.items():
            setattr(module, name.rpartition(".")[2], submodule)
        self.loader.exec_module(module)


def loaded_alone() -> bool:
    """Whether the functions were loaded without executing `scipy.special`'s ``__init__``."""
    return _alone


def _submodules() -> dict[str, ModuleType]:
    return {name: module for name, module in sys.modules.items()
            if name.startswith(PACKAGE + ".") and module is not None}


def _load_alone() -> ModuleType:
    """``scipy.special._ufuncs``, loaded under an unexecuted placeholder of its package."""
    importlib.import_module("scipy")
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None:
        raise ImportError(f"no {PACKAGE}")
    placeholder = importlib.util.module_from_spec(spec)
    before = set(_submodules())
    held = (signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
            if hasattr(signal, "pthread_sigmask") else None)
    try:
        if sys.modules.setdefault(PACKAGE, placeholder) is not placeholder:
            raise ImportError(f"{PACKAGE} was imported meanwhile")
        try:
            return importlib.import_module(EXTENSION)
        finally:
            if sys.modules.get(PACKAGE) is placeholder:
                del sys.modules[PACKAGE]
            loaded = {n: m for n, m in _submodules().items() if n not in before}
            if loaded and PACKAGE not in sys.modules:
                sys.meta_path.insert(0, SubmoduleBinder(loaded))
    finally:
        if held is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)


def _can_load_alone() -> bool:
    """One Python thread (however started), scipy.special not imported, no array-API mode."""
    return (PACKAGE not in sys.modules and threading.active_count() == 1
            and len(sys._current_frames()) == 1 and not os.environ.get("SCIPY_ARRAY_API"))


def special_functions_module() -> ModuleType:
    """The module holding the ufuncs of `FUNCTIONS`, loaded once per process.

    ``scipy.special._ufuncs`` loaded alone where that is safe (see the module docstring),
    otherwise `scipy.special` itself.

    Raises
    ------
    RuntimeError
        Called again while loading (from a signal handler or a finaliser of the same thread).
    """
    global _module, _alone, _loading
    with _lock:
        if _module is None:
            if _loading:
                raise RuntimeError("fastperf's special functions were asked for while loading")
            _loading = True
            try:
                module = None
                if _can_load_alone():
                    try:
                        module = _load_alone()
                        _alone = all(callable(getattr(module, name, None)) for name in FUNCTIONS)
                    except Exception:  # another scipy layout: the usual import below
                        _alone = False
                if not _alone:
                    module = importlib.import_module(PACKAGE)
                _module = module
            finally:
                _loading = False
        return _module


def special_function(name: str) -> Any:
    """scipy's ufunc `name` (one of `FUNCTIONS`): ``scipy.special.<name>``, the same object.

    Parameters
    ----------
    name : str
        A name of `FUNCTIONS`.

    Returns
    -------
    numpy.ufunc
        The function.

    Raises
    ------
    ValueError
        `name` is not one of `FUNCTIONS` (add it there, and to the call table of
        `tests/test_special_functions.py`).
    """
    if name not in FUNCTIONS:
        raise ValueError(f"{name!r} is not one of fastperf's special functions {FUNCTIONS}")
    return getattr(special_functions_module(), name)
