"""setup.py when the native kernels cannot be compiled: one warning line and a build that goes on
without them, or, with ``FASTPERF_REQUIRE_NATIVE=1``, a failed build with the traceback.

Oracles: the build's exit status, its stderr and the files it wrote, with the compile made to
fail by a C compiler that always fails (``CC=/bin/false``: numba.pycc checks the compiler before
compiling anything). What a build with a compiler gives is checked on the installed wheel
(.ci/wheel.sh) and by tests/test_native.py.
"""
import importlib.metadata
import os
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent

pytestmark = [
    pytest.mark.skipif(not (ROOT / "setup.py").is_file(), reason="no setup.py beside tests/"),
    pytest.mark.skipif(not Path("/bin/false").exists(), reason="needs /bin/false as a compiler"),
]


def unmet_build_requirements() -> list[str]:
    """The requirements of pyproject.toml's ``[build-system]`` this environment does not meet
    (pip's isolated build meets them; ``python setup.py`` runs with what is installed)."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    with open(ROOT / "pyproject.toml", "rb") as file:
        requires = tomllib.load(file)["build-system"]["requires"]
    unmet = []
    for requirement in map(Requirement, requires):
        try:
            version = importlib.metadata.version(requirement.name)
        except importlib.metadata.PackageNotFoundError:
            version = None
        if version is None or not requirement.specifier.contains(version, prereleases=True):
            unmet.append(f"{requirement} (installed: {version})")
    return unmet


def build_without_compiler(tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    """``python setup.py -q build_ext`` into `tmp_path` with a C compiler that always fails."""
    unmet = unmet_build_requirements()
    if unmet:
        pytest.skip(f"the build's requirements are not installed here: {', '.join(unmet)}")
    return subprocess.run(
        [sys.executable, "setup.py", "-q", "build_ext", "--build-lib", str(tmp_path / "lib"),
         "--build-temp", str(tmp_path / "temp")],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
        env={**os.environ, "CC": "/bin/false", "CXX": "/bin/false", **env})


def test_a_failed_native_compile_prints_one_line_and_the_build_goes_on(tmp_path):
    result = build_without_compiler(tmp_path, FASTPERF_REQUIRE_NATIVE="")
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stderr.splitlines() if "fastperf" in line]
    assert len(lines) == 1, result.stderr
    assert result.stderr.rstrip().endswith(lines[0])
    assert lines[0].startswith("WARNING: fastperf: the native kernels (fastperf.kernels.compiled) "
                               "were not built (RuntimeError: ")
    assert "JIT-compile its kernels at run time" in lines[0]
    assert "fastperf --version" in lines[0] and "FASTPERF_REQUIRE_NATIVE=1" in lines[0]
    assert "Traceback" not in result.stderr  # -q: the traceback is at info level (pip -v)
    assert not list(tmp_path.rglob("compiled*")), "no native module is written"


def test_a_failed_native_compile_fails_the_build_when_required(tmp_path):
    result = build_without_compiler(tmp_path, FASTPERF_REQUIRE_NATIVE="1")
    assert result.returncode != 0
    assert "FASTPERF_REQUIRE_NATIVE=1 and the native kernels failed to build" in result.stderr
    assert "Traceback" in result.stderr and "RuntimeError" in result.stderr
    assert "WARNING: fastperf" not in result.stderr
