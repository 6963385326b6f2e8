"""The type checker's scope and what it ships: ``[tool.mypy]`` in pyproject.toml checks every
module whose names `fastperf.EXPORTS` exports (plus the CLI and the result classes), and the
package data lists the files type checkers read from an installed fastperf. `.ci/run` runs mypy
itself (seconds to a minute: not part of the test suite)."""
from pathlib import Path

import pytest

import fastperf

tomllib = pytest.importorskip("tomllib", reason="the TOML reader of Python 3.11+")

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def checked(path: Path) -> bool:
    """Whether mypy's ``files`` name `path` (a path under the root) or a folder above it."""
    relative = path.relative_to(ROOT)
    entries = [Path(entry) for entry in PYPROJECT["tool"]["mypy"]["files"]]
    return any(relative == entry or entry in relative.parents for entry in entries)


@pytest.mark.parametrize("module", sorted(set(fastperf.EXPORTS.values())))
def test_mypy_checks_every_exported_module(module):
    # the source in this checkout (the installed copy may live elsewhere): a module or a package
    source = ROOT.joinpath(*module.split("."))
    source = source.with_suffix(".py") if source.with_suffix(".py").is_file() \
        else source / "__init__.py"
    assert source.is_file(), module
    assert checked(source), f"{module} ({source}) is not in [tool.mypy] files"


@pytest.mark.parametrize("path", ["fastperf/__init__.pyi", "fastperf/cli.py",
                                  "fastperf/results/base.py", "fastperf/results/render.py"])
def test_mypy_checks_the_stub_cli_and_results(path):
    assert checked(ROOT / path)


def test_the_typing_files_ship():
    """PEP 561: the ``py.typed`` marker and the stub of the lazy top-level module are package
    data, so a type checker sees the API of an installed fastperf (not Any)."""
    data = PYPROJECT["tool"]["setuptools"]["package-data"]["fastperf"]
    assert "py.typed" in data and "*.pyi" in data
    assert (ROOT / "fastperf" / "py.typed").is_file()
    assert (ROOT / "fastperf" / "__init__.pyi").is_file()
