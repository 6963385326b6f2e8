"""Start-up figures as whole processes, with ``python -c "import numpy, pyarrow"`` as the floor.

    pytest bench/test_startup_bench.py -s -p no:cacheprovider

Measured in one run on the same machine, each a median of REPEATS fresh processes (cold ones:
one each, they take a minute):

- ``import fastperf``;
- ``fastperf compare old.txt new.txt`` (the example Go files), warm cache and cold (an empty
  ``NUMBA_CACHE_DIR``);
- the first ``speedup_test`` / ``sparc`` / ``compare`` call of a fresh process (after the import,
  the table read), warm cache: what the call itself adds, module imports and cache loads included;
- ``fastperf warmup`` on an empty cache, then the command again on that cache;
- the cold command with the native kernels turned off (``FASTPERF_NATIVE=0``): what an install
  without them (or before them) pays, Numba's JIT compiling every kernel.

Printed as seconds and as ratios to the floor; goals beside them (issue 39's for the import and
the warm command, the instant-start issue's for the rest).

Every process runs with Python's bytecode cache on (``PYTHONDONTWRITEBYTECODE`` removed from
its environment; the first, untimed run writes fastperf's ``.pyc`` files), as for an installed
package, whose ``.pyc`` files pip writes at install: without them each process compiles
fastperf's sources again, about 0.2 s of the command's time on this machine.
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OLD, NEW = str(REPO / "examples" / "old.txt"), str(REPO / "examples" / "new.txt")
REPEATS = 5

FIRST_CALL = """
import time, fastperf
table = fastperf.read([{old!r}, {new!r}])
start = time.perf_counter()
fastperf.{call}
print(time.perf_counter() - start)
"""
CALLS = {
    "speedup_test": "speedup_test(table, baseline='old', candidate='new')",
    "sparc": "sparc(table, baseline='old', candidate='new')",
    "compare": "compare(table, baseline='old', candidate='new')",
}

#: The environment of every process: this one's, with the bytecode cache on (see above).
AS_INSTALLED = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def wall(argv: list[str], env: dict | None = None) -> float:
    """Seconds a process takes, start to exit."""
    start = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True, env={**AS_INSTALLED, **(env or {})})
    return time.perf_counter() - start


def median_wall(argv: list[str], repeats: int = REPEATS, env: dict | None = None) -> float:
    return statistics.median(wall(argv, env) for _ in range(repeats))


def first_call(name: str) -> float:
    """Median seconds of the first `name` call of a fresh process, after the table is read."""
    code = FIRST_CALL.format(old=OLD, new=NEW, call=CALLS[name])
    times = []
    for _ in range(REPEATS):
        out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                             text=True, env=AS_INSTALLED).stdout
        times.append(float(out.strip().splitlines()[-1]))
    return statistics.median(times)


def test_startup_figures():
    py = sys.executable
    command = [py, "-m", "fastperf", "compare", OLD, NEW]
    wall(command)  # fills the caches (Numba's, the bytecode) for the warm figures
    rows = [("floor: python -c 'import numpy, pyarrow'",
             median_wall([py, "-c", "import numpy, pyarrow"]), None)]
    rows.append(("import fastperf", median_wall([py, "-c", "import fastperf"]), 0.25))
    rows.append(("fastperf compare old.txt new.txt, warm cache", median_wall(command), 0.7))
    for name in CALLS:
        rows.append((f"first {name}() call in a fresh process, warm cache", first_call(name), 0.1))
    with tempfile.TemporaryDirectory() as cold:
        env = {"NUMBA_CACHE_DIR": cold}
        rows.append(("fastperf compare old.txt new.txt, cold cache", wall(command, env), 10.0))
    with tempfile.TemporaryDirectory() as cold:
        env = {"NUMBA_CACHE_DIR": cold}
        rows.append(("fastperf warmup, cold cache", wall([py, "-m", "fastperf", "warmup"], env),
                     60.0))
        rows.append(("then fastperf compare old.txt new.txt", median_wall(command, 3, env), 0.7))
    with tempfile.TemporaryDirectory() as cold:
        env = {"NUMBA_CACHE_DIR": cold, "FASTPERF_NATIVE": "0"}
        rows.append(("fastperf compare old.txt new.txt, cold cache, JIT only (FASTPERF_NATIVE=0)",
                     wall(command, env), None))
    floor = rows[0][1]
    print(f"\nstart-up, {os.cpu_count()} CPUs; floor {floor:.3f} s")
    print("| what | seconds | / floor | goal |")
    print("|---|---|---|---|")
    for what, seconds, goal in rows:
        print(f"| {what} | {seconds:.3f} | {seconds / floor:.1f}x | "
              f"{'' if goal is None else f'< {goal} s'} |")
