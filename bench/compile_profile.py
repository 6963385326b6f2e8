"""What each public function and command compiles, cold: one fresh process per scenario.

Run from the repository root (``python bench/compile_profile.py [SCENARIO...] [--markdown]``).
Each scenario runs in a new Python process whose Numba cache directory (``NUMBA_CACHE_DIR``) is
a new empty folder, so it compiles everything it needs; a second process then runs it again on
that cache (the warm case). Numba's event API (``fastperf.kernels.builds.CompileLog``) records
each specialization compiled. Printed: per scenario, the wall time cold and warm, the number of
specializations and the compile time, and the kernels whose compile dominates.

This profiles the JIT (``FASTPERF_NATIVE=0``): an install with the native kernels
(``fastperf.kernels.compiled``, docs/startup.md) compiles nothing for these scenarios.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

#: Setup shared by the Python scenarios: the two example Go files as one table.
SETUP = """
import fastperf
from importlib.resources import files
ex = files("fastperf.examples")
table = fastperf.read([str(ex / "old.txt"), str(ex / "new.txt")])
paired = fastperf.simulate(20, 12, seed=3, paired=True).table
"""

#: name -> Python statements (after SETUP) or a command line (a list).
SCENARIOS: dict[str, str | list[str]] = {
    "fastperf compare old.txt new.txt": ["compare", "{ex}/old.txt", "{ex}/new.txt"],
    "fastperf describe old.txt": ["describe", "{ex}/old.txt"],
    "compare()": "fastperf.compare(table, baseline='old', candidate='new')",
    "speedup_test()": "fastperf.speedup_test(table, baseline='old', candidate='new')",
    "sparc()": "fastperf.sparc(paired, baseline='baseline', candidate='candidate', pair='run')",
    "hpt()": "fastperf.hpt(table, baseline='old', candidate='new')",
    "describe()": "fastperf.describe(table)",
    "aggregate_score()": "fastperf.aggregate_score(paired, baseline='baseline')",
    "plan_runs()": "fastperf.plan_runs(table)",
    "anova()": "fastperf.anova(paired, factor='variant', by='benchmark')",
}

DRIVER = """
import json, sys, time
start = time.perf_counter()
from fastperf.kernels.builds import CompileLog
with CompileLog() as log:
    {body}
print(json.dumps({{"seconds": time.perf_counter() - start, "records": log.records}}))
"""


def driver(scenario: str | list[str]) -> str:
    """The program a scenario's process runs."""
    if isinstance(scenario, list):
        body = ("from fastperf.cli import main\n    from importlib.resources import files\n"
                "    ex = str(files('fastperf.examples'))\n"
                "    import contextlib, io\n"
                "    with contextlib.redirect_stdout(io.StringIO()):\n"
                f"        main([a.format(ex=ex) for a in {scenario!r}])")
    else:
        body = "\n    ".join((SETUP + scenario).strip().splitlines())
    return DRIVER.format(body=body)


def run(scenario: str | list[str], cache_dir: str) -> dict:
    """Run one scenario in a fresh process on the Numba cache `cache_dir`; wall time and log."""
    # the JIT's compile: the native kernels (fastperf.kernels.compiled) would compile nothing
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir, FASTPERF_NATIVE="0")
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", driver(scenario)], env=env, cwd=REPO,
                         capture_output=True, text=True, check=True).stdout
    result = json.loads(out.strip().splitlines()[-1])
    result["wall"] = time.perf_counter() - start
    return result


def summarize(name: str, cold: dict, warm: dict, top: int = 6) -> dict:
    """One row: wall times, specializations, compile seconds, the dominant kernels."""
    by_kernel: dict[str, list] = {}
    for r in cold["records"]:
        entry = by_kernel.setdefault(r["kernel"].removeprefix("fastperf.kernels."), [0, 0.0])
        entry[0] += 1
        entry[1] += r["exclusive"]
    ranked = sorted(by_kernel.items(), key=lambda kv: -kv[1][1])
    own = [r for r in cold["records"] if r["kernel"].startswith("fastperf.")]
    return {
        "scenario": name, "cold_s": cold["wall"], "warm_s": warm["wall"],
        "compile_s": sum(r["exclusive"] for r in cold["records"]),
        "specializations": len(own), "kernels": len({r["kernel"] for r in own}),
        "warm_compiles": len(warm["records"]),
        "top": [(k, n, s) for k, (n, s) in ranked[:top]],
    }


def main(argv: list[str]) -> None:
    names = [a for a in argv if not a.startswith("--")] or list(SCENARIOS)
    rows = []
    for name in names:
        with tempfile.TemporaryDirectory(prefix="fastperf-cold-") as cache:
            cold = run(SCENARIOS[name], cache)
            warm = run(SCENARIOS[name], cache)
        rows.append(summarize(name, cold, warm))
        row = rows[-1]
        print(f"{name}: cold {row['cold_s']:.1f} s (compile {row['compile_s']:.1f} s, "
              f"{row['specializations']} specializations of {row['kernels']} kernels), "
              f"warm {row['warm_s']:.2f} s ({row['warm_compiles']} compiles)", file=sys.stderr)
        for kernel, n, seconds in row["top"]:
            print(f"    {seconds:6.2f} s  {n:2d}x  {kernel}", file=sys.stderr)
    if "--markdown" in argv:
        print("| scenario | cold process | compile | specializations (kernels) | warm process |")
        print("|---|---|---|---|---|")
        for r in rows:
            print(f"| {r['scenario']} | {r['cold_s']:.1f} s | {r['compile_s']:.1f} s | "
                  f"{r['specializations']} ({r['kernels']}) | {r['warm_s']:.2f} s |")
    if "--json" in argv:
        print(json.dumps(rows))


if __name__ == "__main__":
    main(sys.argv[1:])
