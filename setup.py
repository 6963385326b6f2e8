"""setuptools build of fastperf: the metadata is in pyproject.toml; this file adds the native
kernels, ``fastperf.kernels.compiled``, compiled ahead of time by Numba from the kernel sources
(`fastperf.native_build`), so that an installed fastperf runs without a JIT compile.

Should that compile fail (no C compiler, a platform Numba's AOT compiler does not support, or a
Numba without ``numba.pycc``: pyproject.toml pins the verified range), the install goes on
without the module and fastperf compiles its kernels with Numba's JIT at run time instead. The
build says so in one line at warning level (setuptools' log, on stderr; pip shows a build's
output only with ``pip install -v`` or when the build fails), and ``fastperf --version`` and a
one-line note on each command's stderr say so at run time (docs/startup.md).

``FASTPERF_REQUIRE_NATIVE=1`` makes a failed compile fail the build instead, with its
traceback: wheels for publishing are built so (.ci/wheel.sh, ``[tool.cibuildwheel]``), and a
user who wants the native kernels or an error can install so.
"""
import logging
import os
import sys
import traceback
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

NATIVE = "fastperf.kernels.compiled"

#: The environment variable that turns a failed native compile into a failed build ("1").
REQUIRE_NATIVE = "FASTPERF_REQUIRE_NATIVE"

#: The most characters of the compile error's message the warning line quotes.
MESSAGE_CHARS = 240


def failure_line(exc: BaseException) -> str:
    """The one line a build without the native kernels prints: what failed, what it costs,
    and how to see the whole error."""
    message = " ".join(str(exc).split())
    if len(message) > MESSAGE_CHARS:
        message = message[:MESSAGE_CHARS - 3] + "..."
    return (f"WARNING: fastperf: the native kernels ({NATIVE}) were not built "
            f"({type(exc).__name__}: {message}); fastperf will JIT-compile its kernels at run "
            "time (first calls take seconds to a minute; `fastperf --version` says so). "
            f"Install with {REQUIRE_NATIVE}=1 to make this an error with the full traceback")


class BuildNativeKernels(build_ext):
    """build_ext that compiles the native kernels with Numba's AOT compiler (numba.pycc)."""

    built_native = False

    def build_extension(self, ext):
        if ext.name != NATIVE:
            return super().build_extension(ext)
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        try:
            # deferred: the source tree's fastperf is importable only once its folder is on
            # sys.path (just above), and Numba only where the native kernels are built
            from fastperf.native_build import compile_native

            compile_native(self.get_ext_fullpath(ext.name), verbose=bool(self.verbose > 1))
            self.built_native = True
        except Exception as exc:  # noqa: BLE001 - the JIT remains; say why in one line
            if os.environ.get(REQUIRE_NATIVE) == "1":
                self.announce(f"fastperf: {REQUIRE_NATIVE}=1 and the native kernels failed to "
                              "build:", level=logging.ERROR)
                raise
            # the traceback at info level: `python setup.py build_ext` and `pip install -v`
            # show it above the warning line, a plain `pip install` neither
            self.announce(traceback.format_exc().rstrip(), level=logging.INFO)
            self.announce(failure_line(exc), level=logging.WARNING)
        finally:
            sys.path.pop(0)
        return None

    def copy_extensions_to_source(self):  # editable installs: only what was built
        if not self.built_native:
            self.extensions = [ext for ext in self.extensions if ext.name != NATIVE]
        super().copy_extensions_to_source()


setup(ext_modules=[Extension(NATIVE, sources=[])],
      cmdclass={"build_ext": BuildNativeKernels})
