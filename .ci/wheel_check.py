"""Check an installed fastperf wheel: the native kernels serve it, its first ``compare`` compiles
nothing, and its results equal the JIT's bit for bit.

Run by .ci/wheel.sh (in a fresh virtual environment with no compiler on PATH, with
``--no-compiler``) and by cibuildwheel's ``test-command`` (pyproject.toml), with the Python the
wheel is installed in, from outside any checkout::

    python .ci/wheel_check.py [--no-compiler]

Each check runs in a new process, as a user's would:

1. ``fastperf`` is imported from the installed wheel (site-packages), not from a source tree;
2. ``fastperf --version`` says ``native kernels: active`` with every build of the manifest;
3. a first ``fastperf compare`` of the shipped Go example pair (``examples/old.txt`` and
   ``new.txt``, installed as ``fastperf.examples``) exits 0, prints no note about the native
   kernels, and leaves Numba and llvmlite unimported: nothing was JIT-compiled;
4. the same command with ``FASTPERF_NATIVE=0`` and an empty Numba cache JIT-compiles (Numba's
   event API counts the compiles), and its output table (Parquet) equals the native one: same
   schema, same values, floats compared by their IEEE-754 bits.

It exits 1 with one line per failed check.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import sysconfig
import tempfile
import time
from contextlib import nullcontext
from importlib import resources
from pathlib import Path

import pyarrow.parquet as pq

import fastperf
from fastperf.cli import main as fastperf_main
from fastperf.kernels.builds import CompileLog, native_status
from fastperf.kernels.native_signatures import SIGNATURES

#: Compilers that must not be on PATH with ``--no-compiler``.
COMPILERS = ("cc", "gcc", "clang", "c++", "g++", "clang++", "cl")

#: Modules whose presence in ``sys.modules`` means the JIT was started.
JIT_MODULES = ("numba", "llvmlite")

#: How long each child process may take (the JIT one compiles compare's kernels, tens of seconds).
CHILD_TIMEOUT_S = 900


def canonical(value):
    """`value` (from ``pyarrow`` ``to_pylist``) as JSON data, floats as their IEEE-754 bits, so
    that equal canonical forms mean bit-identical values (NaN payloads and -0.0 included)."""
    if isinstance(value, float):
        return "f64:" + struct.pack("<d", value).hex()
    if isinstance(value, dict):
        return {str(key): canonical(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [canonical(item) for item in value]
    if value is None or isinstance(value, (str, int)):
        return value
    return repr(value)


def example_paths() -> list[str]:
    """The shipped Go example pair, as installed with the wheel (``fastperf.examples``)."""
    folder = resources.files("fastperf.examples")
    return [str(folder / "old.txt"), str(folder / "new.txt")]


def run_compare(output: Path) -> None:
    """The child process: this process's first fastperf call is ``fastperf compare`` of the
    example pair, written as Parquet; then write what it imported and compiled and the table's
    canonical form to `output` (JSON)."""
    jit = os.environ.get("FASTPERF_NATIVE") == "0"
    table_path = output.with_suffix(".parquet")
    log = CompileLog() if jit else None  # the JIT process only: CompileLog imports Numba
    start = time.perf_counter()
    with log if log is not None else nullcontext():
        exit_status = fastperf_main(["compare", *example_paths(), "--format", "parquet",
                                     "-o", str(table_path)])
    seconds = time.perf_counter() - start
    imported = sorted(name for name in JIT_MODULES if name in sys.modules)
    status = native_status()
    table = pq.read_table(table_path)
    output.write_text(json.dumps({
        "exit": exit_status, "seconds": seconds, "imported": imported,
        "native": status.active, "cause": status.cause, "builds": status.builds,
        "compiled": None if log is None else len(log.fastperf_records()),
        "rows": table.num_rows,
        "schema": table.schema.to_string(show_schema_metadata=True),
        "columns": {name: canonical(table.column(name).to_pylist())
                    for name in table.column_names},
    }))


def child(output: Path, env: dict[str, str]) -> tuple[dict, str]:
    """Run `run_compare` in a new process with `env`; its record and its stderr."""
    result = subprocess.run([sys.executable, __file__, "--child", str(output)], env=env,
                            capture_output=True, text=True, timeout=CHILD_TIMEOUT_S)
    if result.returncode != 0:
        raise SystemExit(f"wheel check: FAILED: the compare process exited "
                         f"{result.returncode}:\n{result.stderr[-3000:]}")
    return json.loads(output.read_text()), result.stderr


def installed_location_problem() -> str | None:
    """Why the imported fastperf is not an installed one, or None."""
    package = Path(fastperf.__file__).resolve().parent
    site = {Path(sysconfig.get_path(key)).resolve() for key in ("purelib", "platlib")}
    if not any(folder in package.parents for folder in site):
        return f"fastperf was imported from {package}, not from site-packages {sorted(site)}"
    return None


def version_problem() -> tuple[str, str | None]:
    """``fastperf --version``'s output, and why it does not show every native build, or None."""
    command = shutil.which("fastperf")
    if command is None:
        return "", "the fastperf command is not on PATH"
    result = subprocess.run([command, "--version"], capture_output=True, text=True, timeout=120)
    text = result.stdout.strip()
    expected = f"native kernels: active ({len(SIGNATURES)} builds"
    if result.returncode != 0 or expected not in text:
        return text, f"`fastperf --version` exited {result.returncode} without {expected!r}"
    return text, None


def check(no_compiler: bool) -> list[str]:
    """Run every check; the failures, one line each."""
    failures = []
    if no_compiler:
        found = {name: shutil.which(name) for name in COMPILERS if shutil.which(name)}
        if found:
            failures.append(f"compilers on PATH: {found}")
        else:
            print(f"wheel check: no compiler on PATH ({', '.join(COMPILERS)})")
    problem = installed_location_problem()
    if problem:
        failures.append(problem)
    else:
        print(f"wheel check: fastperf {fastperf.__version__} from {Path(fastperf.__file__).parent}")
    text, problem = version_problem()
    if problem:
        failures.append(problem)
    else:
        print("wheel check: fastperf --version: " + text.replace("\n", " | "))

    with tempfile.TemporaryDirectory() as tmp:
        base = {key: value for key, value in os.environ.items() if key != "FASTPERF_NATIVE"}
        native, stderr = child(Path(tmp) / "native.json",
                               {**base, "NUMBA_CACHE_DIR": str(Path(tmp) / "cache-native")})
        if native["exit"] != 0 or not native["native"] or native["imported"]:
            failures.append(f"first compare: exit {native['exit']}, native kernels "
                            f"{native['cause']}, imported {native['imported']} (expected 0, "
                            "active, none of numba and llvmlite)")
        elif "native kernels" in stderr:
            failures.append(f"first compare printed a note on the native kernels: {stderr!r}")
        else:
            print(f"wheel check: first compare ran on the native kernels in "
                  f"{native['seconds']:.2f} s, {native['rows']} rows; numba and llvmlite "
                  "never imported: nothing was JIT-compiled")
        jit, _ = child(Path(tmp) / "jit.json", {**base, "FASTPERF_NATIVE": "0",
                                                "NUMBA_CACHE_DIR": str(Path(tmp) / "cache-jit")})
        if jit["exit"] != 0 or jit["cause"] != "disabled" or not jit["compiled"]:
            failures.append(f"JIT compare: exit {jit['exit']}, native kernels {jit['cause']}, "
                            f"{jit['compiled']} kernels compiled (expected 0, disabled, > 0)")
        else:
            print(f"wheel check: the same compare with FASTPERF_NATIVE=0 JIT-compiled "
                  f"{jit['compiled']} kernel builds in {jit['seconds']:.1f} s")
        if jit["schema"] != native["schema"]:
            failures.append("the native and JIT compare tables have different schemas")
        elif jit["columns"] != native["columns"]:
            differing = [name for name in native["columns"]
                         if native["columns"][name] != jit["columns"].get(name)]
            failures.append(f"the native and JIT compare tables differ in columns {differing}")
        else:
            print(f"wheel check: native and JIT tables equal bit for bit ({native['rows']} "
                  f"rows x {len(native['columns'])} columns)")
    return failures


def command(argv: list[str] | None = None) -> int:
    """The script's entry point; its exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-compiler", action="store_true",
                        help="also check that no C compiler is on PATH")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        run_compare(args.child)
        return 0
    failures = check(args.no_compiler)
    for failure in failures:
        print(f"wheel check: FAILED: {failure}", file=sys.stderr)
    if not failures:
        print("wheel check: all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(command())
