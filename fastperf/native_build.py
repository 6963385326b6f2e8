"""Compile the kernels ahead of time into ``fastperf.kernels.compiled`` (run by setup.py).

Numba's AOT compiler (``numba.pycc``) compiles each build listed in
`fastperf.kernels.native_signatures` (a kernel and the argument types Python calls it with)
from the same function and the same Numba IR as the JIT, for a generic CPU of the machine's
architecture, into one extension module that needs neither Numba nor LLVM at run time. The
module also exports ``digest_<source_digest()>``, so `fastperf.kernels.builds` uses it only with
the kernel sources it was built from.

``python -m fastperf.native_build`` rewrites the manifest: it runs fastperf.warmup's
tasks (every public function, through the paths that pick different kernels) and the command
line on the shipped examples, records each kernel call's argument types at the Python boundary
and asks the JIT for each build's return type. ``tests/test_native.py`` checks that the manifest
is current and that a process running those tasks never imports Numba.
"""
from __future__ import annotations

import contextlib
import importlib
import io
import pkgutil
import tempfile
import warnings
from importlib import resources
from pathlib import Path

from fastperf.kernels import builds
from fastperf.kernels.native_signatures import SIGNATURES

__all__ = ["compile_native", "import_kernel_modules", "manifest_text", "numba_type",
           "record_calls", "record_signatures", "released_gil", "type_spec"]

#: The manifest this module writes and setup.py compiles.
MANIFEST = Path(__file__).parent / "kernels" / "native_signatures.py"

#: Modules of fastperf.kernels that hold no kernel.
NOT_KERNELS = {"builds", "native_signatures", "compiled"}


def import_kernel_modules() -> None:
    """Import every kernel module, so that `builds.KERNELS` lists every kernel."""
    package = importlib.import_module("fastperf.kernels")
    for module in pkgutil.iter_modules(package.__path__):
        if module.name not in NOT_KERNELS:
            importlib.import_module(f"fastperf.kernels.{module.name}")


def numba_type(spec: str):
    """The Numba type a manifest spelling names: ``"float64[::1]"``, ``"int64[:, ::1]"``,
    ``"bool"``, ``"Tuple(float64[::1], int64)"``, ``"UniTuple(int64[::1], 3)"``, ``"none"``."""
    from numba import types  # deferred: record_calls' process must not import Numba

    spec = spec.strip()
    if spec.startswith("UniTuple(") or spec.startswith("Tuple("):
        parts = split_top_level(spec[spec.index("(") + 1:-1])
        if spec.startswith("UniTuple("):
            return types.UniTuple(numba_type(parts[0]), int(parts[1]))
        return types.Tuple([numba_type(part) for part in parts])
    if "[" in spec:
        name, dims = spec.split("[", 1)
        return types.Array(numba_type(name), dims.count(",") + 1, "C")
    return types.boolean if spec == "bool" else getattr(types, spec)


def split_top_level(text: str) -> list[str]:
    """`text` split at the commas outside brackets and parentheses."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += char in "([" and 1 or char in ")]" and -1 or 0
        if char == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return parts


def type_spec(numba_type_) -> str:
    """The manifest spelling of a Numba type (the inverse of `numba_type`)."""
    from numba import types  # deferred: record_calls' process must not import Numba

    t = numba_type_
    if isinstance(t, types.Array):
        if t.layout != "C" or t.ndim not in (1, 2, 3):
            raise ValueError(f"no manifest spelling for {t}")
        return f"{t.dtype}[{', '.join([':'] * (t.ndim - 1) + ['::1'])}]"
    if isinstance(t, types.UniTuple):
        return f"UniTuple({type_spec(t.dtype)}, {t.count})"
    if isinstance(t, types.Tuple):
        return f"Tuple({', '.join(type_spec(item) for item in t.types)})"
    if isinstance(t, (types.Integer, types.Float, types.Boolean, types.NoneType)):
        return str(t)
    raise ValueError(f"no manifest spelling for {t}")


def record_calls() -> list[tuple[str, tuple[str, ...]]]:
    """Run the warm-up tasks and the command line on the shipped examples in this process;
    return every (kernel, argument types) called from Python, sorted."""
    # deferred: setup.py imports this module where pip's build has Numba and numpy, no pyarrow
    from fastperf.warmup import TASKS

    builds.CALL_LOG = []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _name, task in TASKS:
                task()
            run_command_line_examples()
        return sorted(set(builds.CALL_LOG))
    finally:
        builds.CALL_LOG = None


def record_signatures() -> list[tuple[str, tuple[str, ...], str]]:
    """`record_calls` with each build's return type, which the JIT infers (compiling it or
    loading it from Numba's cache): the manifest's entries."""
    calls = record_calls()
    import_kernel_modules()
    by_name = {kernel.name: kernel for kernel in builds.KERNELS}
    signatures = []
    for name, args in calls:
        if None in args:
            raise ValueError(f"{name} is called with an argument no native build takes: {args}")
        argtypes = tuple(numba_type(arg) for arg in args)
        dispatcher = by_name[name].dispatcher
        with contextlib.redirect_stderr(io.StringIO()):
            dispatcher.compile(argtypes)
        result = dispatcher.overloads[argtypes].signature.return_type
        signatures.append((name, args, type_spec(result)))
    return signatures


def run_command_line_examples() -> None:
    """The CLI commands a CI job runs first, on the shipped Go examples (output discarded)."""
    from fastperf.cli import main  # deferred: as fastperf.warmup in record_calls

    folder = resources.files("fastperf.examples")
    old, new = str(folder / "old.txt"), str(folder / "new.txt")
    with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stdout(io.StringIO()), \
            contextlib.redirect_stderr(io.StringIO()):
        for argv in (["compare", old, new], ["describe", old, new],
                     ["compare", old, new, "--protocol", "speedup-test"],
                     ["compare", old, new, "--format", "markdown"], ["demo"],
                     ["aggregate", old, new], ["plan", old, new],
                     ["report", old, new, "-o", str(Path(tmp) / "report.html")]):
            if main(argv) != 0:
                raise RuntimeError(f"fastperf {' '.join(argv)} failed while recording the builds")


def manifest_text(signatures: list[tuple[str, tuple[str, ...], str]]) -> str:
    """The source of `fastperf.kernels.native_signatures` for `signatures`."""
    lines = ['"""The kernel builds compiled ahead of time into fastperf.kernels.compiled.',
             "",
             "Generated by ``python -m fastperf.native_build`` (see that module): each entry",
             "is a kernel, the types of the arguments Python calls it with and its return type.",
             '"""', "", "SIGNATURES = ["]
    for name, args, result in signatures:
        lines.append(f"    ({name!r},")
        lines.append(f"     {tuple(args)!r},")
        lines.append(f"     {result!r}),")
    lines.append("]")
    return "\n".join(lines) + "\n"


def native_stamp():
    """The body of the exported ``digest_<...>`` function, which only names the sources."""
    return 0


@contextlib.contextmanager
def released_gil():
    """While active, Numba's AOT compiler builds Python wrappers that release the GIL around
    each call (as ``@njit(nogil=True)`` does for the JIT), so that threads can run native
    builds at once (`fastperf.kernels.builds.GroupKernel`'s chunks).

    ``numba.pycc`` takes no such option: it makes its own compiler flags (``Flags()`` in
    ``numba.pycc.compiler``) for every export, so their class is swapped, for the build only,
    for one whose ``release_gil`` is on. No formula.
    """
    from numba.pycc import compiler as pycc_compiler  # deferred: as in numba_type

    flags = pycc_compiler.Flags

    class ReleasingFlags(flags):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.release_gil = True

    pycc_compiler.Flags = ReleasingFlags
    try:
        yield
    finally:
        pycc_compiler.Flags = flags


def compile_native(output_file: str | Path, verbose: bool = False) -> Path:
    """Compile every build of the manifest into the extension module `output_file`.

    Parameters
    ----------
    output_file : str or Path
        The extension module's path, ending in the interpreter's extension suffix (as
        setuptools' ``build_ext.get_ext_fullpath`` gives it).
    verbose : bool
        Print Numba's and the C compiler's steps.

    Returns
    -------
    Path
        `output_file`.

    Notes
    -----
    Numba's AOT compiler (``numba.pycc.CC``) with its default generic CPU target, so that the
    module runs on any machine of the architecture; every build releases the GIL while it runs
    (`released_gil`). No formula.
    """
    from numba import types  # deferred: as in numba_type
    from numba.pycc import CC  # deferred: as in numba_type

    output_file = Path(output_file)
    import_kernel_modules()
    builds.jit_all()
    by_name = {kernel.name: kernel for kernel in builds.KERNELS}
    cc = CC(output_file.name.split(".")[0])
    cc.output_dir = str(output_file.parent)
    cc.output_file = output_file.name
    cc.verbose = verbose
    for index, (name, args, result) in enumerate(SIGNATURES):
        signature = numba_type(result)(*(numba_type(arg) for arg in args))
        cc.export(builds.native_export_name(name, index), signature)(by_name[name].jit_function)
    cc.export(f"digest_{builds.source_digest()}", types.int64())(native_stamp)
    output_file.parent.mkdir(parents=True, exist_ok=True)
    with released_gil():
        cc.compile()
    return output_file


if __name__ == "__main__":
    MANIFEST.write_text(manifest_text(record_signatures()))
    print(f"wrote {MANIFEST}; rebuild the native module: python setup.py build_ext --inplace")
