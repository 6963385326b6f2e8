"""Start-up: what a fresh process compiles, loads and imports (issue: instant start).

Each check runs in new Python processes, because compiling, caching and importing are
per-process facts. Oracles: Numba's own dispatcher statistics and event API (cache hits and
compile events), and ``sys.modules``.
"""
import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import binom

from fastperf.engine.intervals import EXACT_PMF_MAX_SIZE, half_binomial_pmf

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"


def run_python(code: str, env: dict | None = None) -> str:
    """Run `code` in a new interpreter (the repository's checkout importable) and return stdout."""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env={**os.environ, **(env or {})}, timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


PARALLEL_KERNEL = """
import json, numpy as np
from fastperf.kernels.moments import sample_moments
values = np.random.default_rng(5).lognormal(size=40); offsets = np.array([0, 5, 12, 40])
build = sample_moments.{build}
out = build(values, offsets)
stats = build.stats
print(json.dumps({{"hits": sum(stats.cache_hits.values()), "misses": sum(stats.cache_misses.values()),
                  "parallel": bool(build.targetoptions.get("parallel")),
                  "result": [a.tolist() for a in out]}}))
"""


#: The JIT's cache is what these tests check: the native kernels (tests/test_native.py) off.
JIT = {"FASTPERF_NATIVE": "0"}


def test_parallel_builds_are_cached_apart_from_the_serial_ones(tmp_path):
    env = {"NUMBA_CACHE_DIR": str(tmp_path), **JIT}

    def call(build):
        return json.loads(run_python(PARALLEL_KERNEL.format(build=build), env).splitlines()[-1])

    serial, first, second = call("serial"), call("parallel"), call("parallel")
    results = [run.pop("result") for run in (serial, first, second)]
    assert serial == {"hits": 0, "misses": 1, "parallel": False}
    # not the serial build's cache entry: the parallel build compiles its own
    assert first == {"hits": 0, "misses": 1, "parallel": True}
    # Numba 0.68 caches parfors: a later process loads it
    assert second == {"hits": 1, "misses": 0, "parallel": True}
    # bit-identical whichever build runs, compiled or loaded (JSON floats round-trip exactly)
    assert results[0] == results[1] == results[2]
    values = np.random.default_rng(5).lognormal(size=40)
    sizes = [5, 7, 28]
    assert results[0][0] == sizes
    np.testing.assert_allclose(results[0][2], [s.mean() for s in np.split(values, [5, 12])],
                               rtol=1e-14)


COMMANDS = f"""
import contextlib, io, json
from fastperf.kernels.builds import CompileLog
from fastperf.cli import main
with CompileLog() as log, contextlib.redirect_stdout(io.StringIO()):
    main(["compare", r"{EXAMPLES / 'old.txt'}", r"{EXAMPLES / 'new.txt'}"])
    main(["describe", r"{EXAMPLES / 'old.txt'}"])
print(json.dumps([[r["kernel"], r["args"]] for r in log.records]))
"""


def test_a_second_process_compiles_nothing_for_compare_and_describe():
    run_python(COMMANDS, JIT)  # compiles what is not cached yet (nothing once the suite has run)
    compiled = json.loads(run_python(COMMANDS, JIT).splitlines()[-1])
    assert compiled == []


def test_after_warmup_the_commands_compile_nothing(tmp_path):
    # run outside the checkout: `python -m` puts the working folder first on sys.path, and the
    # checkout's source tree has no fastperf.examples (pip installs examples/ there)
    out = subprocess.run([sys.executable, "-m", "fastperf", "warmup"], capture_output=True,
                         text=True, timeout=1800, cwd=tmp_path, env={**os.environ, **JIT})
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.startswith("fastperf warmup: 7 tasks in ")
    assert out.stdout.rstrip().endswith("native kernels: none (this install JIT-compiles every kernel)")
    compiled = json.loads(run_python(COMMANDS, JIT).splitlines()[-1])
    assert compiled == []


def test_import_fastperf_loads_nothing_heavy():
    code = ("import sys, fastperf\n"
            "print(sorted(m for m in ('numpy', 'pyarrow', 'numba', 'scipy', 'pandas') "
            "if m in sys.modules))\n"
            "names = [n for n in fastperf.__all__ if n != '__version__']\n"
            "missing = [n for n in names if getattr(fastperf, n, None) is None]\n"
            "print(missing, sorted(set(names) ^ set(fastperf.EXPORTS)))")
    heavy, rest = run_python(code).splitlines()
    assert heavy == "[]"
    assert rest == "[] []"


def test_the_command_line_reads_a_go_file_without_scipy_stats():
    code = ("import sys, contextlib, io\nfrom fastperf.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    main(['compare', r'{EXAMPLES / 'old.txt'}', r'{EXAMPLES / 'new.txt'}'])\n"
            "print('scipy.stats' in sys.modules)")
    assert run_python(code).splitlines()[-1] == "False"


@pytest.mark.parametrize("size", [1, 2, 7, 30, 31, 200, 1023, 1030, EXACT_PMF_MAX_SIZE])
def test_half_binomial_pmf_is_the_correctly_rounded_exact_value(size):
    pmf = half_binomial_pmf(size)
    ks = range(0, size // 2 + 1, max(1, size // 40))
    exact = [float(Fraction(int(binom_coefficient(size, k)), 2 ** size)) for k in ks]
    assert [pmf[k] for k in ks] == exact
    np.testing.assert_allclose(pmf, binom.pmf(np.arange(size // 2 + 1), size, 0.5), rtol=1e-12)  # Boost: a few ulps


def binom_coefficient(n: int, k: int) -> int:
    """C(n, k) by the product formula, independently of the code under test."""
    out = 1
    for i in range(k):
        out = out * (n - i) // (i + 1)
    return out
