"""setuptools build of fastperf: the metadata is in pyproject.toml; this file adds the native
kernels, ``fastperf.kernels.compiled``, compiled ahead of time by Numba from the kernel sources
(`fastperf.native_build`), so that an installed fastperf runs without a JIT compile.

Should that compile fail (a platform Numba's AOT compiler does not support, or a Numba without
``numba.pycc``: pyproject.toml pins the verified range), the install goes on without the module
and fastperf compiles its kernels with Numba's JIT at run time instead; ``fastperf --version``
and a one-line note on each command's stderr say so (docs/startup.md).
"""
import sys
import traceback
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

NATIVE = "fastperf.kernels.compiled"


class BuildNativeKernels(build_ext):
    """build_ext that compiles the native kernels with Numba's AOT compiler (numba.pycc)."""

    def build_extension(self, ext):
        if ext.name != NATIVE:
            return super().build_extension(ext)
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        try:
            from fastperf.native_build import compile_native

            compile_native(self.get_ext_fullpath(ext.name), verbose=bool(self.verbose > 1))
            self.built_native = True
        except Exception as exc:  # noqa: BLE001 - the JIT remains; say why loudly
            traceback.print_exc()
            print(f"warning: fastperf's native kernels ({NATIVE}) were not built "
                  f"({type(exc).__name__}: {exc}); fastperf will compile its kernels with "
                  "Numba's JIT at run time (slow first calls; `fastperf --version` says so)",
                  file=sys.stderr)
        finally:
            sys.path.pop(0)

    built_native = False

    def copy_extensions_to_source(self):  # editable installs: only what was built
        if not self.built_native:
            self.extensions = [ext for ext in self.extensions if ext.name != NATIVE]
        super().copy_extensions_to_source()


setup(ext_modules=[Extension(NATIVE, sources=[])],
      cmdclass={"build_ext": BuildNativeKernels})
