"""The house rules of docs/architecture.md, checked on the source: layers import only downwards,
no module imports another module's underscore name (nor another package's private module), no
import cycle, no module over `MAX_LINES` lines; Numba is imported only by the build modules; no
import-system tricks (no module writes `sys.modules` or `sys.meta_path`); imports at module top,
a function-level import only of an optional dependency (`OPTIONAL`) or one of the few justified
deferrals listed in `DEFERRED`.

The oracle is the source itself, read with `ast` (every import, module-level or inside a
function), against the layer table written out here from docs/architecture.md.
"""
from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import fastperf

PACKAGE = Path(__file__).resolve().parents[1] / "fastperf"

#: Layer of each top-level part of the package (docs/architecture.md): a module may import
#: modules of its own layer or of lower ones.
LAYERS = {
    "errors": 0, "kernels": 0, "progress": 0,
    "io": 1,
    "data": 2,
    "engine": 3, "results": 3,
    "stats": 4,
    "protocols": 5, "designs": 5,
    "cli": 6, "cli_args": 6, "warmup": 6, "__init__": 6, "__main__": 6, "spark": 6,
    "native_build": 6,
}
MAX_LINES = 1000


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
        private = [n for n in names if n.startswith("_") and not n.endswith("__")]  # not dunders
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


def test_every_jit_kernel_is_cached():
    """``cache=True`` on every ``@njit`` (inline helpers included: Numba caches them like any
    other function when called on their own); group kernels set it for both builds
    (`GroupKernel`), which tests/test_compile_cache.py checks in fresh processes."""
    for module, path in MODULES.items():
        if ".kernels." not in module:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.FunctionDef):
                continue
            for decorator in node.decorator_list:
                name = decorator.func if isinstance(decorator, ast.Call) else decorator
                if not (isinstance(name, ast.Name) and name.id == "njit"):
                    continue
                cached = isinstance(decorator, ast.Call) and any(
                    k.arg == "cache" and isinstance(k.value, ast.Constant) and k.value.value is True
                    for k in decorator.keywords)
                assert cached, f"{module}.{node.name}: @njit without cache=True"


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


def test_only_the_build_modules_import_numba():
    """Kernels take njit and prange from kernels.builds, which imports Numba only when a call
    needs the JIT: any other import of Numba would put it back on every process's path."""
    assert importers_of("numba") == {"fastperf.kernels.builds", "fastperf.native_build"}


def test_no_private_module_of_another_package_is_imported():
    """Public, documented routes only (``scipy.special``, not ``scipy.special._ufuncs``)."""
    for module, path in MODULES.items():
        private = [n for n in imported_names(path) if not n.startswith(("fastperf", "__future__"))
                   and any(part.startswith("_") for part in n.split("."))]
        assert not private, f"{module} imports the private {private}"


#: The import system's state that a library must leave to the program: a write to one of these
#: changes what every later import in the user's process finds.
IMPORT_SYSTEM = {"modules", "meta_path", "path_hooks", "path_importer_cache"}
#: Methods that change a dict or a list in place.
MUTATORS = {"__setitem__", "__delitem__", "append", "clear", "extend", "insert", "pop", "popitem",
            "remove", "setdefault", "update"}


def import_system_writes(path: Path) -> list[str]:
    """The lines of `path` that write `sys.modules` or `sys.meta_path` (or the path hooks):
    assignment or deletion of the attribute or of an item, a mutating method call, `setattr`."""

    def names_import_system(node: ast.AST) -> bool:
        return (isinstance(node, ast.Attribute) and node.attr in IMPORT_SYSTEM
                and isinstance(node.value, ast.Name) and node.value.id == "sys")

    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        targets: list[ast.AST] = []
        if isinstance(node, (ast.Assign, ast.Delete)):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in MUTATORS:
                targets = [func.value]
            elif isinstance(func, ast.Name) and func.id in ("setattr", "delattr") and node.args:
                first = node.args[0]
                if isinstance(first, ast.Name) and first.id == "sys":
                    found.append(f"line {node.lineno}: {func.id}(sys, ...)")
        for target in targets:
            if isinstance(target, ast.Subscript):
                target = target.value
            if names_import_system(target):
                found.append(f"line {node.lineno}: sys.{target.attr}")
    return found


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_module_writes_the_import_system(module):
    """No placeholder modules, no meta-path finders: a user's process imports as without
    fastperf."""
    assert not import_system_writes(MODULES[module]), \
        f"{module} writes the import system: {import_system_writes(MODULES[module])}"


def test_a_process_running_fastperf_keeps_its_import_system():
    """At run time too: after a command's work in this process, `sys.meta_path` holds the
    finders it held before, and every loaded module is a real one, found by the import system
    (a module whose spec or file is missing would be a placeholder)."""
    code = """
import contextlib, io, json, sys
before = [type(f).__name__ for f in sys.meta_path]
from fastperf.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    status = main(["compare", sys.argv[1], sys.argv[2]])
import scipy.special
placeholders = sorted(name for name, module in sys.modules.items()
                      if name.startswith(("fastperf", "scipy")) and module is not None
                      and getattr(module, "__spec__", None) is None)
print(json.dumps(dict(status=status, same=before == [type(f).__name__ for f in sys.meta_path],
                      placeholders=placeholders,
                      ndtr=scipy.special.ndtr is sys.modules["fastperf.engine.pvalues"].ndtr)))
"""
    examples = PACKAGE.parent / "examples"
    done = subprocess.run([sys.executable, "-c", code, str(examples / "old.txt"),
                           str(examples / "new.txt")], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen == {"status": 0, "same": True, "placeholders": [], "ndtr": True}


def test_the_import_system_check_sees_each_kind_of_write(tmp_path):
    """The check above against hand-written sources, each naming what it writes."""
    cases = {
        "sys.modules['scipy.special'] = placeholder": True,
        "del sys.modules['scipy.special']": True,
        "sys.modules.setdefault('x', placeholder)": True,
        "sys.meta_path.insert(0, Finder())": True,
        "sys.meta_path.remove(finder)": True,
        "sys.meta_path = [Finder()] + sys.meta_path": True,
        "sys.meta_path += [Finder()]": True,
        "setattr(sys, 'meta_path', [])": True,
        "sys.path_hooks.append(hook)": True,
        "loaded = 'pandas' in sys.modules": False,
        "finders = list(sys.meta_path)": False,
        "module = sys.modules.get('numba')": False,
        "sys.stdout.write('x')": False,
    }
    for source, writes in cases.items():
        path = tmp_path / "case.py"
        path.write_text(f"import sys\n{source}\n")
        assert bool(import_system_writes(path)) == writes, source


#: Optional dependencies, imported only by the function that needs them (fastperf runs without
#: them): the Spark runner, dataframe libraries taken as input, the browser driver of the report
#: tests, and psutil's memory figures.
OPTIONAL = {"pyspark", "pandas", "polars", "duckdb", "playwright", "psutil"}

#: The other function-level imports, each justified by what importing at module top would cost
#: (figures: docs/startup.md): (importing module, imported module) -> why. At most 15.
DEFERRED = {
    ("fastperf.kernels.builds", "numba"):
        "Numba (~0.3 s, LLVM) only when a call needs the JIT: the native kernels serve the rest",
    ("fastperf.kernels.builds", "numba.core"):
        "the same, for CompileLog's event listener",
    ("fastperf.native_build", "numba"):
        "record_calls runs in a process that must not import Numba (tests/test_native.py)",
    ("fastperf.native_build", "numba.pycc"):
        "the same: only compile_native, in setup.py, needs the AOT compiler",
    ("fastperf.native_build", "fastperf.warmup"):
        "setup.py imports native_build in pip's build environment: Numba and numpy, no pyarrow",
    ("fastperf.native_build", "fastperf.cli"):
        "the same",
    ("fastperf.io.jmh", "scipy.stats"):
        "scipy.stats takes ~0.5 s; only JMH files without raw data need it",
    ("fastperf.io.dataset", "pyarrow.dataset"):
        "pyarrow.dataset imports pandas where installed (~0.3 s); only lazy sources need it",
    ("fastperf.io.tabular", "pyarrow.dataset"):
        "the same; only the progress bar of a Parquet read needs it",
}
MAX_DEFERRED = 15


def function_level_import_lines(path: Path) -> dict[str, list[int]]:
    """The modules imported inside a function of `path` (``from X import y`` gives X), each
    with the lines of those import statements."""
    found: dict[str, list[int]] = {}
    for function in ast.walk(ast.parse(path.read_text())):
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            for node in ast.walk(function):
                if isinstance(node, ast.ImportFrom) and node.module:
                    found.setdefault(node.module, []).append(node.lineno)
                elif isinstance(node, ast.Import):
                    for alias in node.names:
                        found.setdefault(alias.name, []).append(node.lineno)
    return found


def function_level_imports(path: Path) -> set[str]:
    """The modules imported inside a function of `path`."""
    return set(function_level_import_lines(path))


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_at_module_top(module):
    """The dependency graph is read at the top of each module: a function-level import only
    of an optional dependency or of a justified deferral (`DEFERRED`)."""
    hidden = sorted(name for name in function_level_imports(MODULES[module])
                    if name.split(".")[0] not in OPTIONAL and (module, name) not in DEFERRED)
    assert not hidden, f"{module} imports {hidden} inside a function: import at module top"


def commented(lines: list[str], line: int) -> bool:
    """Whether import statement `line` (1-based) has a comment on its line, or above the run of
    import statements it belongs to."""
    if "#" in lines[line - 1]:
        return True
    above = line - 2
    while above >= 0 and lines[above].strip().startswith(("import ", "from ")):
        above -= 1
    return above >= 0 and lines[above].strip().startswith("#")


@pytest.mark.parametrize("module", sorted(MODULES))
def test_each_deferred_import_says_why(module):
    """A function-level import carries a comment, on its line or above its run of imports (by
    the convention ``# deferred: why``)."""
    lines = MODULES[module].read_text().splitlines()
    silent = sorted((name, line) for name, numbers in
                    function_level_import_lines(MODULES[module]).items() for line in numbers
                    if not commented(lines, line))
    assert not silent, f"{module}: deferred imports without a comment saying why: {silent}"


def test_the_deferrals_are_few_and_each_still_there():
    assert len(DEFERRED) <= MAX_DEFERRED
    stale = [pair for pair in DEFERRED
             if pair[0] not in MODULES or pair[1] not in function_level_imports(MODULES[pair[0]])]
    assert not stale, f"DEFERRED lists imports no longer deferred: {stale}"
    assert all(why.strip() for why in DEFERRED.values())


def test_type_stub_names_what_the_package_exports():
    """`fastperf/__init__.pyi` (what type checkers and IDEs read) imports exactly the names of
    `EXPORTS` (what `import fastperf` resolves on first use), each from the same module."""
    stub = {}
    for node in ast.parse((PACKAGE / "__init__.pyi").read_text()).body:
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                assert alias.asname == alias.name, f"{alias.name}: re-export as itself"
                stub[alias.name] = node.module
    assert stub == fastperf.EXPORTS
    assert (PACKAGE / "py.typed").exists()


def test_dir_lists_the_public_names():
    """``dir(fastperf)`` (tab completion) offers every public name and none of the helpers the
    package's own module imports."""
    names = dir(fastperf)
    assert set(fastperf.__all__) <= set(names)
    assert [n for n in names if not n.startswith("__")] == sorted({*fastperf.EXPORTS, "EXPORTS"})


def test_every_package_folder_is_shipped():
    """pyproject.toml lists fastperf's packages one by one: a new subpackage (a concept that
    outgrew its module) must be listed, or a non-editable install lacks it."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    root = Path(__file__).resolve().parents[1]
    with open(root / "pyproject.toml", "rb") as file:
        listed = set(tomllib.load(file)["tool"]["setuptools"]["packages"])
    folders = {".".join(init.parent.relative_to(root).parts)
               for init in (root / "fastperf").rglob("__init__.py")}
    assert folders - listed == set()
