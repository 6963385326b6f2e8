"""The house rules of docs/architecture.md, checked on the source: layers import only downwards,
no module imports another module's underscore name, no import cycle, no module over 600 lines;
Numba and scipy.special are imported in their one place each (kernels.builds, special_functions).

The oracle is the source itself, read with `ast` (every import, module-level or inside a
function), against the layer table written out here from docs/architecture.md.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "fastperf"

#: Layer of each top-level part of the package (docs/architecture.md): a module may import
#: modules of its own layer or of lower ones.
LAYERS = {
    "errors": 0, "kernels": 0, "progress": 0, "special_functions": 0,
    "io": 1,
    "data": 2,
    "engine": 3, "results": 3,
    "stats": 4,
    "protocols": 5, "designs": 5,
    "cli": 6, "cli_args": 6, "warmup": 6, "__init__": 6, "__main__": 6, "spark": 6,
    "native_build": 6,
}
MAX_LINES = 600


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer_of(module: str) -> int:
    parts = module.split(".")
    return LAYERS["__init__"] if len(parts) == 1 else LAYERS[parts[1]]


def imports_of(path: Path) -> list[tuple[str, list[str]]]:
    """(module imported, names imported from it) for every fastperf import in `path`."""
    tree = ast.parse(path.read_text())
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("fastperf"):
            found.append((node.module, [alias.name for alias in node.names]))
        elif isinstance(node, ast.Import):
            found += [(alias.name, []) for alias in node.names if alias.name.startswith("fastperf")]
    return found


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def resolved(module: str, names: list[str]) -> list[str]:
    """The modules an import statement loads: `module`, or its submodules named in `names`."""
    subs = [f"{module}.{n}" for n in names if f"{module}.{n}" in MODULES]
    return subs or [module]


def test_every_module_has_a_layer():
    assert all(layer_of(m) >= 0 for m in MODULES)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_go_down_the_layers(module):
    own = layer_of(module)
    for target, names in imports_of(MODULES[module]):
        for loaded in resolved(target, names):
            assert layer_of(loaded) <= own, f"{module} (layer {own}) imports {loaded}"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_underscore_name_imported_across_modules(module):
    for target, names in imports_of(MODULES[module]):
        private = [n for n in names if n.startswith("_")]
        assert not private, f"{module} imports {private} from {target}"
        assert not any(part.startswith("_") and part != "__init__" for part in target.split(".")), \
            f"{module} imports the private module {target}"


def test_no_import_cycle():
    graph = {m: {t for target, names in imports_of(p) for t in resolved(target, names)
                 if t in MODULES and t != m} for m, p in MODULES.items()}
    # the package's __init__ re-exports everything; a submodule importing `fastperf` itself
    # would be a cycle through it
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in graph[node]:
            if state.get(nxt) == 1:
                cycle = path[path.index(nxt):] + [nxt] if nxt in path else [node, nxt]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])


@pytest.mark.parametrize("module", sorted(MODULES))
def test_modules_stay_small(module):
    lines = MODULES[module].read_text().count("\n")
    assert lines <= MAX_LINES, f"{module} has {lines} lines (at most {MAX_LINES})"


def test_kernels_are_plain_njit_loops_without_arrow():
    for module, path in MODULES.items():
        if ".kernels." in module:
            text = path.read_text()
            assert "pyarrow" not in text and "forceobj" not in text and "fastmath=True" not in text, module


def imported_names(path: Path) -> list[str]:
    """Every module an import statement in `path` names, fastperf's or not; ``from X import y``
    gives X and X.y (y may be a submodule)."""
    names = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            names += [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
    return names


def importers_of(package: str) -> set[str]:
    """The fastperf modules that import `package` or one of its submodules."""
    return {module for module, path in MODULES.items()
            if any(n == package or n.startswith(package + ".") for n in imported_names(path))}


def test_special_functions_come_from_one_module():
    """scipy's special functions are taken from `fastperf.special_functions` (which loads them
    without scipy.special's package import, docs/startup.md), never imported directly."""
    assert importers_of("scipy.special") <= {"fastperf.special_functions"}, \
        "import scipy's special functions through fastperf.special_functions"


def test_only_the_build_modules_import_numba():
    """Kernels take njit and prange from kernels.builds, which imports Numba only when a call
    needs the JIT: any other import of Numba would put it back on every process's path."""
    assert importers_of("numba") == {"fastperf.kernels.builds", "fastperf.native_build"}
