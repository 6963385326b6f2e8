"""The native kernels: fastperf.kernels.compiled, compiled ahead of time from the kernel sources
by Numba's AOT compiler when fastperf is installed (setup.py, fastperf.native_build).

Oracles: the JIT build of the same kernels (a process with ``FASTPERF_NATIVE=0``), whose
results every other test checks against scipy, R and brute force; ``sys.modules`` (what a
process imported); numpy's own view of the argument types; and, for ``fastperf --version``,
the installed distribution's metadata and the manifest.
"""
import importlib.metadata
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from fastperf.errors import InputError
from fastperf.kernels import builds
from fastperf.kernels.native_signatures import SIGNATURES

#: Set to 0 to run fastperf on the JIT only; these tests then check nothing native.
NATIVE_OFF = os.environ.get("FASTPERF_NATIVE", "1") == "0"


def run_python(code: str, env: dict | None = None) -> str:
    """Run `code` in a new interpreter and return its stdout (failing on a non-zero exit).

    It runs in this folder, not the checkout's root: ``python -c`` puts the working folder first
    on sys.path, and the source tree has neither the compiled module nor fastperf.examples
    (``pip install`` adds both)."""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env={**os.environ, **(env or {})}, timeout=1800,
                            cwd=Path(__file__).resolve().parent)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


@pytest.fixture
def native():
    """The native builds; a failure (not a skip) where the installed fastperf lacks them."""
    if NATIVE_OFF:
        pytest.skip("FASTPERF_NATIVE=0: the native kernels are turned off")
    table = builds.native_builds()
    assert table, ("fastperf.kernels.compiled is missing or was built from other kernel "
                   "sources: `pip install .` compiles it (setup.py), as does `python setup.py "
                   "build_ext --inplace` in a checkout")
    return table


def test_every_manifest_build_is_in_the_module(native):
    served = {(name, key) for name, keys in native.items() for key in keys}
    assert served == {(name, tuple(args)) for name, args, _ in SIGNATURES}


EVERY_TASK = """
import sys
from fastperf.native_build import record_calls
calls = record_calls()
print(sorted(m for m in ("numba", "llvmlite") if m in sys.modules))
import json
print(json.dumps(calls))
"""


def test_every_task_runs_native_and_the_manifest_is_current(native):
    """fastperf.warmup's tasks (every public function, through its kernel-picking paths) and
    the command line on the shipped examples: no kernel call needs the JIT, so Numba is never
    imported, and the calls are exactly the manifest's (regenerate it with ``python -m
    fastperf.native_build`` when this fails after a kernel change)."""
    imported, calls = run_python(EVERY_TASK).splitlines()[-2:]
    recorded = {(name, tuple(args)) for name, args in json.loads(calls)}
    assert recorded == {(name, tuple(args)) for name, args, _ in SIGNATURES}
    assert imported == "[]"


IDENTITY = """
import hashlib, json, warnings
import numpy as np
import pyarrow as pa
warnings.simplefilter("ignore")
import fastperf
from fastperf.io.read import example_table

go = example_table()
independent = fastperf.simulate(12, 30, seed=1).table
paired = fastperf.simulate(12, 30, seed=2, paired=True).table
rng = np.random.default_rng(3)
x, y = rng.lognormal(size=(2, 4, 25))
tied_x, tied_y = np.round(x, 1), np.round(y, 1)
commits = np.repeat(np.arange(40), 2)
history = pa.table({"benchmark": ["a"] * commits.size, "commit": commits,
                    "value": np.exp(rng.normal(0, 0.01, commits.size)) * (1 + 0.1 * (commits >= 20))})
calls = {
    "compare": lambda: fastperf.compare(go, baseline="old", candidate="new"),
    "compare simulated": lambda: fastperf.compare(independent, baseline="baseline",
                                                  candidate="candidate"),
    "speedup_test": lambda: fastperf.speedup_test(go, baseline="old", candidate="new"),
    "hpt": lambda: fastperf.hpt(independent, baseline="baseline", candidate="candidate"),
    "sparc": lambda: fastperf.sparc(paired, baseline="baseline", candidate="candidate",
                                    pair="run"),
    "describe": lambda: fastperf.describe(go),
    "plan_runs": lambda: fastperf.plan_runs(independent),
    "aggregate_score": lambda: fastperf.aggregate_score(paired, method="per-run"),
    "anova": lambda: fastperf.anova(paired, factor="variant", by="benchmark"),
    "mannwhitneyu": lambda: fastperf.mannwhitneyu(tied_x, tied_y, axis=-1),
    "wilcoxon": lambda: fastperf.wilcoxon(x, y, axis=-1),
    "ks_2samp": lambda: fastperf.ks_2samp(tied_x, tied_y, axis=-1),
    "shapiro": lambda: fastperf.shapiro(x, axis=-1),
    "bootstrap": lambda: fastperf.bootstrap((x, y), statistic="median_ratio", n_resamples=200,
                                            seed=0),
    "permutation_test": lambda: fastperf.permutation_test((x, y), n_resamples=200, seed=0),
    "paired permutation": lambda: fastperf.permutation_test(
        (x, y), statistic="median_diff", paired=True, n_resamples=200, seed=0),
    "ttest_ind": lambda: fastperf.ttest_ind(x, y, axis=-1),
    "ftest": lambda: fastperf.ftest(x, y, axis=-1),
    "rankdata": lambda: fastperf.rankdata(tied_x, axis=-1),
    "multipletests": lambda: fastperf.multipletests(rng.uniform(size=20)),
    "changepoints": lambda: fastperf.changepoints(history, order="commit"),
    "changepoints edivisive": lambda: fastperf.changepoints(history, order="commit",
                                                            method="edivisive", permutations=19),
}
""" + """

def digest(value, h=None):
    h = h or hashlib.sha256()
    if value is None:
        h.update(b"None")
    elif hasattr(value, "to_json"):
        h.update(value.to_json().encode())
    elif isinstance(value, (tuple, list)):
        for item in value:
            digest(item, h)
    elif isinstance(value, (np.ndarray, np.generic, float, int, str)):
        part = np.asarray(value)
        h.update(part.dtype.str.encode() + str(part.shape).encode())
        h.update(part.tobytes() if part.dtype != object else repr(part.tolist()).encode())
    else:
        for name in getattr(value, "_fields", None) or sorted(vars(value)):
            h.update(name.encode())
            digest(getattr(value, name), h)
    return h.hexdigest()

print(json.dumps({name: digest(call()) for name, call in calls.items()}))
"""

#: Calls large enough that the chunked kernels run in chunks on threads (above their
#: `min_rows`; all but `sample_moments` and `segment_means`, which tables of a million values
#: per variant would reach, checked kernel by kernel above), hashed by IDENTITY's digest.
THREADED_CALLS = """
import hashlib, json, warnings
import numpy as np
import pyarrow as pa
warnings.simplefilter("ignore")
import fastperf

table = fastperf.simulate(5000, 31, seed=5).table  # 310,000 rows, quantised shapes: ties
nested = fastperf.simulate(1500, processes=6, iterations=12, seed=6).table
rng = np.random.default_rng(7)
x, y = np.round(rng.lognormal(0, 0.05, (2, 9000, 30)), 2)
n = 600 * 200
commit = np.tile(np.arange(200), 600)
history = pa.table({"series": np.repeat(np.arange(600), 200), "commit": commit,
                    "value": np.exp(rng.normal(0, 0.02, n) + 0.1 * (commit > 120))})
calls = {
    "compare": lambda: fastperf.compare(table, baseline="baseline", candidate="candidate"),
    "compare nested": lambda: fastperf.compare(nested, baseline="baseline",
                                               candidate="candidate"),
    "check": lambda: fastperf.check(nested),
    "describe": lambda: fastperf.describe(pa.concat_tables([table] * 5)),
    "mannwhitneyu": lambda: fastperf.mannwhitneyu(x, y, axis=-1, method="exact"),
    "wilcoxon": lambda: fastperf.wilcoxon(x, y, axis=-1, method="exact"),
    "changepoints": lambda: fastperf.changepoints(history, by="series", order="commit"),
}
""" + IDENTITY[IDENTITY.index("def digest"):]


def test_results_do_not_depend_on_the_thread_count(native):
    """Whole results of calls above the chunked kernels' thresholds (the run diagnostics,
    Hodges-Lehmann intervals, exact tie tails, `scaled_moments`, sorts, segmentation) at 1, 2
    and 3 threads: bit for bit the same."""
    runs = [json.loads(run_python(THREADED_CALLS, {builds.THREADS_ENV: threads}).splitlines()[-1])
            for threads in ("1", "2", "3")]
    assert runs[0] == runs[1] == runs[2]


def test_native_and_jit_builds_give_bit_identical_results(native):
    """Every public function's whole result (tables, summaries, warnings, JSON floats written
    to round-trip) from the native builds and from the JIT builds of the same kernels."""
    native_run = json.loads(run_python(IDENTITY).splitlines()[-1])
    jit_run = json.loads(run_python(IDENTITY, {"FASTPERF_NATIVE": "0"}).splitlines()[-1])
    assert native_run == jit_run


def test_a_module_built_from_other_sources_is_not_used(monkeypatch, native):
    monkeypatch.setattr(builds, "source_digest", lambda: "0" * 16)
    builds.load_native.cache_clear()
    try:
        assert builds.native_builds() == {}
        status = builds.native_status()
    finally:
        monkeypatch.undo()
        builds.load_native.cache_clear()  # the next call loads the real one again
    assert (status.active, status.cause, status.builds) == (False, "other sources", 0)
    assert "digest mismatch" in status.reason and "build_ext --inplace" in status.fix
    assert builds.native_builds() == native


def test_the_status_counts_the_manifest_builds(native):
    status = builds.native_status()
    assert (status.active, status.cause, status.fix) == (True, "active", "")
    assert status.builds == len(SIGNATURES)


STATUS = """
from fastperf.kernels import builds
status = builds.native_status()
print(status.active, status.cause, status.builds, sep="|")
print(status.explain())
"""


#: A module that raises on import, as one built for another numpy or Python does.
UNLOADABLE = "raise ImportError('undefined symbol: PyArray_API')\n"


@pytest.mark.parametrize("env, module, cause", [
    ({"FASTPERF_NATIVE": "0"}, None, "disabled"),
    ({}, "fastperf_no_such_module", "not built"),  # stands for a module that was not built
    ({}, "fastperf_unloadable", "load error"),
], ids=["disabled", "not-built", "load-error"])
def test_why_the_native_kernels_are_inactive(env, module, cause, tmp_path):
    """Each cause in a fresh process (the status is read once per process)."""
    (tmp_path / "fastperf_unloadable.py").write_text(UNLOADABLE)
    code = STATUS
    if module is not None:
        code = (f"import sys\nsys.path.insert(0, {str(tmp_path)!r})\n"
                f"from fastperf.kernels import builds\nbuilds.NATIVE_MODULE = {module!r}\n"
                + STATUS)
    first, explained = run_python(code, env).splitlines()[-2:]
    assert first == f"False|{cause}|0"
    assert explained.startswith("inactive: ") and "; to fix: " in explained
    if cause == "disabled":
        assert explained.endswith("to fix: unset FASTPERF_NATIVE")
    elif cause == "not built":
        assert "fastperf_no_such_module is not built" in explained
    else:
        assert "(ImportError: undefined symbol: PyArray_API)" in explained


def test_argument_types_as_numba_would_see_them():
    values = np.arange(12.0)
    assert builds.argument_type(values) == "float64[::1]"
    assert builds.argument_type(values.reshape(3, 4)) == "float64[:, ::1]"
    assert builds.argument_type(values[::2]) is None  # not contiguous: Numba's layout "A"
    assert builds.argument_type(values.reshape(3, 4).T) is None  # Fortran order
    assert builds.argument_type(values.astype(">f8")) is None  # byte-swapped
    assert builds.argument_type(builds.read_only(values)) == "float64[::1]"
    assert builds.argument_type(np.zeros(3, np.int32)) == "int32[::1]"
    assert builds.argument_type(np.zeros(3, bool)) == "bool[::1]"
    assert builds.argument_type(True) == builds.argument_type(np.bool_(False)) == "bool"
    assert builds.argument_type(3) == builds.argument_type(np.int64(3)) == "int64"
    assert builds.argument_type(2 ** 63) is None  # Numba would type it uint64
    assert builds.argument_type(np.uint64(3)) == "uint64"
    assert builds.argument_type(0.5) == builds.argument_type(np.float64(0.5)) == "float64"
    assert builds.argument_type(np.int32(3)) == "int32"
    assert builds.argument_type(None) is None
    assert builds.argument_type("text") is None


def test_a_call_without_a_native_build_takes_the_jit_with_the_same_result(native):
    """A strided array has no native build: the JIT compiles one; same moments either way."""
    from fastperf.kernels.moments import sample_moments

    values = np.random.default_rng(5).lognormal(size=80)
    offsets = np.array([0, 5, 12, 40])
    contiguous = sample_moments.serial(values[::2].copy(), offsets)
    strided = sample_moments.serial(values[::2], offsets)
    for a, b in zip(contiguous, strided):
        np.testing.assert_array_equal(a, b)
    # the strided call compiled (or loaded) a JIT build for Numba's any-layout arrays
    assert any(signature[0].layout == "A" for signature in sample_moments.serial.signatures)


JIT_START = """
import json, sys
import numpy as np
from fastperf.kernels import builds
from fastperf.kernels.ranks import midranks
from scipy.stats import rankdata

values = np.round(np.random.default_rng(9).lognormal(size=400), 1)
offsets = np.array([0, 31, 62, 200, 400])
expected = [rankdata(values[a:b]) for a, b in zip(offsets[:-1], offsets[1:])]
steps = []
def call(n_rows):
    out = midranks(values, offsets, n_rows=n_rows)[0]
    same = all(np.array_equal(out[a:b], e) for a, b, e in zip(offsets[:-1], offsets[1:], expected))
    steps.append({"same": same, "numba": "numba" in sys.modules,
                  "parallel_compiled": "numba" in sys.modules and bool(
                      midranks.parallel.signatures)})
threshold = midranks.min_rows
{body}
print(json.dumps(steps))
"""


def test_jit_all_before_any_kernel_module_starts_the_jit(native):
    """`builds.jit_all()` in a process that has imported no kernel module yet (as a benchmark or
    a long-running service does first) starts the JIT all the same; a kernel imported after it
    takes its parallel build above the threshold where the process asked for threads, and its
    native serial build otherwise: a JIT started without asking is no request for threads."""
    script = JIT_START.replace(
        "from fastperf.kernels import builds\n",
        "from fastperf.kernels import builds\nassert not builds.KERNELS\nbuilds.jit_all()\n")
    asked = json.loads(run_python(script.replace("{body}", "call(threshold)"),
                                  env={"FASTPERF_PARALLEL": "1"}))
    assert asked == [{"same": True, "numba": True, "parallel_compiled": True}]
    unasked = json.loads(run_python(script.replace("{body}", "call(threshold)"),
                                    env={"FASTPERF_PARALLEL": "0"}))
    assert unasked == [{"same": True, "numba": True, "parallel_compiled": False}]


@pytest.mark.parametrize("body, environment, imports_numba", [
    # however large the input, a call never starts the JIT for threads on its own
    ("call(threshold - 1)\ncall(threshold)\ncall(1000 * threshold)", {"FASTPERF_PARALLEL": "0"},
     [False, False, False]),
    # FASTPERF_PARALLEL=1 asks for threads: the parallel build from the threshold on
    ("call(threshold - 1)\ncall(threshold)", {"FASTPERF_PARALLEL": "1"}, [False, True]),
], ids=["never-on-its-own", "asked-for"])
def test_large_inputs_start_the_jit_only_when_asked(native, body, environment, imports_numba):
    """Above its threshold a group kernel's build is the parallel one, a JIT build, only where
    the process asked for threads (`builds.PARALLEL_ENV`); otherwise the native serial build
    runs at every size (Numba not imported, nothing compiled in the call); same result either
    way."""
    steps = json.loads(run_python(JIT_START.replace("{body}", body), env=environment))
    assert all(step["same"] for step in steps)
    assert [step["numba"] for step in steps] == imports_numba
    assert steps[-1]["parallel_compiled"] == imports_numba[-1]


# --- what the command says: --version, and a one-time note without the native kernels -----

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
NOTE = "fastperf: note: native kernels inactive: "
#: The installed distribution's version (pyproject.toml), not the code's own.
VERSION = importlib.metadata.version("fastperf")


def run_command(args: list[str], env: dict | None = None) -> subprocess.CompletedProcess:
    """``python -m fastperf ARGS`` in a process of its own; fails on a non-zero exit."""
    result = subprocess.run([sys.executable, "-m", "fastperf", *args], capture_output=True,
                            text=True, env={**os.environ, **(env or {})}, timeout=1800,
                            cwd=Path(__file__).resolve().parent)
    assert result.returncode == 0, result.stderr[-3000:]
    return result


FIRST_CALL = """
import json, sys
import numpy as np
import fastperf
table = fastperf.simulate(1, 300_000, seed=3, unit=None).table
result = fastperf.compare(table, baseline="baseline", candidate="candidate")
row = result.benchmarks.to_pylist()[0]
x = np.random.default_rng(0).normal(size=(3, 300))
signed = fastperf.wilcoxon(x)  # the Walsh averages' order statistics too
print(json.dumps({"numba": "numba" in sys.modules, "scipy.stats": "scipy.stats" in sys.modules,
                  "ci": [row["ci_low"], row["ci_high"]], "status": row["status"],
                  "walsh": bool(np.isfinite(signed.estimate).all())}))
"""


def test_the_first_call_on_a_large_group_compiles_nothing(native):
    """A fresh process comparing 300,000 vs 300,000 values (above the Hodges-Lehmann and rank
    kernels' parallel thresholds, and above the exact binomial pmf's size), then a signed-rank
    estimate (the Walsh averages), runs native builds only: Numba, the JIT and scipy.stats are
    never imported in the user's call."""
    out = json.loads(run_python(FIRST_CALL, env={"FASTPERF_PARALLEL": "0"}).splitlines()[-1])
    assert out["numba"] is False and out["scipy.stats"] is False and out["walsh"]
    assert out["status"] == "ok" and out["ci"][0] < out["ci"][1]


def test_version_says_the_native_kernels_are_active(native):
    out = run_command(["--version"])
    assert out.stdout.splitlines() == [
        f"fastperf {VERSION}",
        f"native kernels: active ({len(SIGNATURES)} builds compiled ahead of time)"]
    assert out.stderr == ""


def test_version_says_why_not_and_the_fix():
    out = run_command(["--version"], {"FASTPERF_NATIVE": "0"})
    assert out.stdout.splitlines() == [
        f"fastperf {VERSION}",
        "native kernels: inactive: turned off by FASTPERF_NATIVE=0; kernels are JIT-compiled "
        "instead (first calls take seconds to a minute); to fix: unset FASTPERF_NATIVE"]
    assert out.stderr == ""  # --version is not a command: no note


def test_a_command_without_native_kernels_notes_it_once_on_stderr():
    out = run_command(["describe", str(EXAMPLES / "old.txt"), str(EXAMPLES / "new.txt")],
                      {"FASTPERF_NATIVE": "0"})
    assert out.stdout  # the table, unchanged
    notes = [line for line in out.stderr.splitlines() if line.startswith(NOTE)]
    assert notes == [NOTE + "turned off by FASTPERF_NATIVE=0; kernels are JIT-compiled instead "
                            "(first calls take seconds to a minute); to fix: unset FASTPERF_NATIVE"]
    # once per process, however many commands it runs
    code = ("import contextlib, io\nfrom fastperf.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    for _ in range(3): assert main(['describe', {str(EXAMPLES / 'old.txt')!r}]) == 0\n")
    twice = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env={**os.environ, "FASTPERF_NATIVE": "0"}, timeout=1800)
    assert twice.returncode == 0, twice.stderr[-3000:]
    assert twice.stderr.count(NOTE) == 1


def test_a_command_with_native_kernels_says_nothing_of_them(native):
    out = run_command(["describe", str(EXAMPLES / "old.txt"), str(EXAMPLES / "new.txt")])
    assert out.stdout and "native kernels" not in out.stderr
    help_text = run_command(["--help"], {"FASTPERF_NATIVE": "0"})
    assert "--version" in help_text.stdout and help_text.stderr == ""


# --- threads on the native builds: chunks of groups, the GIL released ---------------------------

def run_diagnostics_arguments() -> dict:
    """The arguments `fastperf.check` passes the run diagnostics' kernels (`warmup_split`,
    `steady_statistics`: groups of processes of values) on a simulated table of 60 benchmarks
    of 1-6 processes, some of one value, with warm-ups, ties and nulls."""
    import fastperf
    import fastperf.engine.diagnostics as diagnostics

    rng = np.random.default_rng(49)
    table = fastperf.simulate(60, processes=6, iterations=12, seed=49).table
    process = table.column("process").to_numpy()
    flat = np.isin(table.column("benchmark").to_numpy(), table.column("benchmark").unique()[:10])
    keep = (rng.random(table.num_rows) < 0.8) & (~flat | (process == 0))  # ragged, some flat
    value = table.column("value").to_numpy().copy()
    value[rng.random(value.size) < 0.02] = np.nan
    value[:300] = np.round(value[:300], 2)  # ties
    value[table.column("iteration").to_numpy() < 3] *= 1.5  # warm-ups
    table = table.set_column(table.schema.get_field_index("value"), "value", pa.array(value))
    captured = {}
    saved = diagnostics.warmup_split, diagnostics.steady_statistics
    for kernel in saved:
        def record(*args, n_rows, kernel=kernel):
            captured[kernel.__name__] = args
            return kernel(*args, n_rows=n_rows)
        setattr(diagnostics, kernel.__name__, record)
    try:
        fastperf.check(table.filter(pa.array(keep)))
    finally:
        diagnostics.warmup_split, diagnostics.steady_statistics = saved
    return captured


def threaded_inputs():
    """One call's arguments per chunked kernel, with empty and inactive groups among them."""
    from fastperf.kernels.diagnostics import steady_statistics, warmup_split
    from fastperf.kernels.moments import sample_moments, scaled_moments, segment_means
    from fastperf.kernels.hodges_lehmann import difference_order_statistics, walsh_order_statistics
    from fastperf.kernels.descriptive import order_statistics
    from fastperf.kernels.rank_sum_ties import rank_sum_tie_tails
    from fastperf.kernels.ranks import rank_sum_statistics, signed_rank_statistics
    from fastperf.kernels.signed_rank_ties import signed_rank_tie_tails
    from fastperf.kernels.segmentation import segment
    from fastperf.kernels.changepoints import EDIVISIVE, TTEST, next_change

    rng = np.random.default_rng(48)
    sizes = rng.integers(0, 120, 300)
    sizes[[3, 150]] = 0
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    values = rng.normal(0, 1, offsets[-1]) + np.repeat(rng.integers(0, 3, 300), sizes)
    sorted_values = np.concatenate([np.sort(values[a:b]) for a, b in zip(offsets[:-1],
                                                                         offsets[1:])])
    other_sizes = rng.integers(0, 90, 300)
    other_offsets = np.concatenate(([0], np.cumsum(other_sizes))).astype(np.int64)
    other = np.concatenate([np.sort(rng.normal(0.3, 1, k)) for k in other_sizes])
    pairs = sizes * other_sizes
    ranks = np.stack([(pairs + 1) // 2, pairs // 2 + 1, pairs // 5 + 1, pairs - pairs // 5],
                     axis=1).astype(np.int64)
    walsh = sizes * (sizes + 1) // 2
    walsh_ranks = np.stack([(walsh + 1) // 2, walsh // 2 + 1, walsh // 5 + 1],
                           axis=1).astype(np.int64)
    active = rng.random(300) < 0.9
    # tie blocks of 300 pooled samples (sizes 0-40, blocks of 1-4 equal values), doubled
    # midranks as scores, a random x size and observed sum each
    block_counts = [rng.integers(1, 5, int(rng.integers(0, 12))) for _ in range(300)]
    counts = np.concatenate(block_counts).astype(np.int64)
    block_offsets = np.concatenate(([0], np.cumsum([c.size for c in block_counts]))).astype(
        np.int64)
    scores = np.concatenate([2 * (np.cumsum(c) - c) + c + 1 for c in block_counts]).astype(
        np.int64)
    pooled = np.array([c.sum() for c in block_counts])
    x_size = rng.integers(0, pooled + 1).astype(np.int64)
    observed = rng.integers(0, pooled * (pooled + 1) + 1).astype(np.int64)
    low = np.maximum(sizes // 4, 1)
    high = np.maximum(sizes - sizes // 4, 1)
    diagnostics = run_diagnostics_arguments()
    moment_values = values.copy()  # with NaN, and groups scaled near the float64 limits
    moment_values[::17] = np.nan
    moment_values[offsets[5]:offsets[9]] *= 1e300
    moment_values[offsets[20]:offsets[22]] *= 1e-310
    # a bisection round with a cut already in the longer series (caches empty: each call
    # takes its own copy of them, `fresh_copy`)
    cuts = np.where(sizes >= 20, sizes // 2, 0).astype(np.int64)[:, None]
    n_cuts = (sizes >= 20).astype(np.int64)
    identity = rng.integers(0, 2 ** 63, 300).astype(np.uint64)

    def bisection(method, permutations):
        caches = (np.full((300, 2), -1, np.int64), np.full((300, 2), -1, np.int64),
                  np.full((300, 2), -np.inf))
        return (next_change, (values, offsets, cuts, n_cuts, active, 5, method, permutations,
                              0.05, 7, identity, 1, *caches))

    return [
        bisection(TTEST, 1),
        bisection(EDIVISIVE, 19),
        (segment, (values, offsets, active, 5, 15, True, np.nan, True, np.nan, True, True, True)),
        (rank_sum_statistics, (sorted_values, offsets, other, other_offsets)),
        (rank_sum_tie_tails, (scores, counts, block_offsets, x_size, observed)),
        (signed_rank_tie_tails, (scores, counts, block_offsets, observed)),
        (signed_rank_statistics, (sorted_values - 1.0, offsets, 1)),
        (difference_order_statistics, (sorted_values, offsets, other, other_offsets, ranks, -1)),
        (walsh_order_statistics, (sorted_values, offsets, walsh_ranks, -1)),
        (order_statistics, (values, offsets, sizes.astype(np.int64), low.astype(np.int64),
                            high.astype(np.int64))),
        (sample_moments, (moment_values, offsets)),
        (scaled_moments, (moment_values, offsets)),
        (segment_means, (moment_values, offsets)),
        (warmup_split, diagnostics["warmup_split"]),
        (steady_statistics, diagnostics["steady_statistics"]),
    ]


def threaded_input(name: str) -> tuple:
    """The chunked kernel `name` and its arguments from `threaded_inputs`."""
    return next((kernel, args) for kernel, args in threaded_inputs() if kernel.__name__ == name)


def same_result(a, b) -> bool:
    """Bit for bit (NaN where NaN), array by array."""
    a, b = (a,) if isinstance(a, np.ndarray) else a, (b,) if isinstance(b, np.ndarray) else b
    return len(a) == len(b) and all(
        x.dtype == y.dtype and x.shape == y.shape
        and np.array_equal(x.view(np.uint8), y.view(np.uint8)) for x, y in zip(a, b))


def fresh_copy(args: tuple) -> tuple:
    """`args` with every array copied (a kernel may write into one: `next_change`'s caches)."""
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def same_arguments(a: tuple, b: tuple) -> bool:
    """The arrays of two argument tuples are equal bit for bit after their calls (the caches
    a kernel filled, and the inputs it must not have touched)."""
    return all(same_result(x, y) for x, y in zip(a, b) if isinstance(x, np.ndarray))


@pytest.mark.parametrize("threads", ["1", "2", "3", "16"])
def test_threaded_native_calls_give_the_one_call_result(native, monkeypatch, threads):
    """A chunked kernel's call on threads (`builds.Chunking`: ranges of groups, each a native
    call, the results joined) returns the single native call's arrays bit for bit, at every
    thread count, more threads than chunks included; the oracle is the native build called
    once on all the groups (tests/test_segmentation.py and the Hodges-Lehmann oracle tests
    check that one against brute force)."""
    for kernel, args in threaded_inputs():
        assert kernel.chunking is not None
        # every call on its own copy of the arguments: `next_change` fills the caches it is
        # given, and a later call reading the first call's entries would not scan at all
        start = fresh_copy(args)
        expected = kernel.serial(*start)
        monkeypatch.setenv(builds.THREADS_ENV, threads)
        threaded = fresh_copy(args)
        got = kernel(*threaded, n_rows=10 ** 9)
        assert same_result(got, expected), (kernel.__name__, threads)
        assert same_arguments(threaded, start), (kernel.__name__, threads)
        for parts in (2, 7, 300, 1000):  # chunks of one group, and more chunks than groups
            bounds = kernel.chunking.bounds(args, parts)
            chunking = kernel.chunking
            groups = args[chunking.csr[0][1] if chunking.csr else chunking.nested[0][1]].shape[
                0] - 1
            assert bounds[0] == 0 and bounds[-1] == groups
            assert (np.diff(bounds) > 0).all()
            chunked = fresh_copy(args)  # the chunks' per-group arrays are views of these
            joined = kernel.chunking.join([kernel.serial(*kernel.chunking.chunk(chunked, a, b))
                                           for a, b in zip(bounds[:-1], bounds[1:])])
            assert same_result(joined, expected), (kernel.__name__, parts)
            assert same_arguments(chunked, start), (kernel.__name__, parts)


@pytest.mark.parametrize("method", ["TTEST", "EDIVISIVE"])
def test_bisection_rounds_on_threads_keep_the_one_call_caches(native, monkeypatch, method):
    """`next_change` on threads (chunks of whole series) fills the caller's caches of scanned
    segments as the one native call does, bit for bit, so the next round reads the same
    segments from them: two rounds each way, from empty caches, compared array by array."""
    from fastperf.kernels import changepoints

    next_change, method = changepoints.next_change, getattr(changepoints, method)
    rng = np.random.default_rng(11)
    sizes = rng.integers(0, 150, 400)
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    z = np.round(rng.lognormal(0, 0.05, offsets[-1]), 2)  # ties
    z *= np.where(np.arange(offsets[-1]) - np.repeat(offsets[:-1], sizes)
                  >= np.repeat(sizes // 2, sizes), 1.2, 1.0)
    identity = rng.integers(0, 2 ** 63, sizes.size).astype(np.uint64)

    def two_rounds(threads):
        monkeypatch.setenv(builds.THREADS_ENV, threads)
        cuts, n_cuts = np.zeros((sizes.size, 2), np.int64), np.zeros(sizes.size, np.int64)
        caches = (np.full((sizes.size, 3), -1, np.int64), np.full((sizes.size, 3), -1, np.int64),
                  np.full((sizes.size, 3), -np.inf))
        answers = []
        for round_index in range(2):
            answer = next_change(z, offsets, cuts, n_cuts, np.ones(sizes.size, bool), 5, method,
                                 19, 0.05, 3, identity, round_index, *caches, n_rows=10 ** 9)
            found = answer[0] >= 0
            cuts[found, n_cuts[found]] = answer[0][found]
            n_cuts[found] += 1
            answers.append(answer + tuple(cache.copy() for cache in caches))
        return answers

    for one, threaded in zip(two_rounds("1"), two_rounds("2")):
        for a, b in zip(one, threaded):
            assert np.array_equal(a.view(np.uint8), b.view(np.uint8))


@pytest.mark.parametrize("threads", ["2", "3", "16"])
def test_one_large_group_shares_its_ranks_between_threads(native, monkeypatch, threads):
    """A call of one group (a single comparison of large samples) has no groups to share: the
    Hodges-Lehmann kernels run ranges of its ranks' columns on the threads
    (`Chunking.columns`; ranks one apart, the estimate's middle pair, stay together) and join
    them, bit for bit the single call's result, which is also each order statistic of the
    sorted differences (or Walsh averages) enumerated in full."""
    from fastperf.kernels.hodges_lehmann import difference_order_statistics, walsh_order_statistics

    rng = np.random.default_rng(4242)
    x = np.sort(np.round(rng.normal(0, 1, 420), 1))  # ties, and zero differences of both signs
    y = np.sort(np.round(rng.normal(0.2, 1, 310), 1))
    x[x == 0] = -0.0
    big = x.size * y.size
    ranks = np.array([[(big + 1) // 2, big // 2 + 1, 1, big, big // 7, 0]], dtype=np.int64)
    walsh = x.size * (x.size + 1) // 2
    walsh_ranks = np.array([[walsh // 2, walsh // 2 + 1, 3, walsh - 2, walsh + 1]],
                           dtype=np.int64)
    calls = [(difference_order_statistics,
              (x, np.array([0, x.size]), y, np.array([0, y.size]), ranks, -1),
              np.sort((x[:, None] - y[None, :]).ravel()), ranks),
             (walsh_order_statistics, (x, np.array([0, x.size]), walsh_ranks, -1),
              np.sort(0.5 * (x[:, None] + x[None, :])[np.triu_indices(x.size)]), walsh_ranks)]
    tasks = []
    real_run = builds.WORKERS.run
    monkeypatch.setattr(builds.WORKERS, "run",
                        lambda work, n: tasks.append(len(work)) or real_run(work, n))
    monkeypatch.setenv(builds.THREADS_ENV, threads)
    for kernel, args, every, wanted in calls:
        expected = kernel.serial(*args)
        got = kernel(*args, n_rows=10 ** 9)
        assert same_result(got, expected), kernel.__name__
        inside = (wanted[0] >= 1) & (wanted[0] <= every.size)
        oracle = np.where(inside, every[np.clip(wanted[0], 1, every.size) - 1] + 0.0, np.nan)
        assert same_result(got[0], oracle), kernel.__name__
        width, units = wanted.shape[1], wanted.shape[1] - 1  # the middle pair is one unit
        for parts in range(2, width + 2):  # every split of the columns joins to the one call
            cuts = kernel.chunking.column_parts(args, parts)
            assert len(cuts) == min(parts, units) and cuts[0][0] == 0 and cuts[-1][1] == width
            assert all(a != 1 for a, _ in cuts)  # the middle pair, one selection, never split
            joined = kernel.chunking.join_columns(
                [kernel.serial(*kernel.chunking.column_chunk(args, a, b)) for a, b in cuts])
            assert same_result(joined, expected), (kernel.__name__, parts)
    assert tasks == [min(int(threads), 5), min(int(threads), 4)]
    # the estimate alone (the middle pair, or one middle rank twice) is one selection: one call
    for middle in ([[walsh // 2, walsh // 2 + 1]], [[walsh // 2 + 1, walsh // 2 + 1]]):
        pair = (x, np.array([0, x.size]), np.array(middle, dtype=np.int64), -1)
        assert walsh_order_statistics.chunking.column_parts(pair, 16) == []
        assert same_result(walsh_order_statistics(*pair, n_rows=10 ** 9),
                           walsh_order_statistics.serial(*pair))
    assert len(tasks) == 2


def test_native_builds_release_the_gil(native, monkeypatch):
    """While a native build runs in one thread, Python code runs in another: the builds are
    compiled with the GIL released (`fastperf.native_build.released_gil`). A build holding it
    would let the counting loop below run only before and after the call."""
    import threading
    import time

    from fastperf.kernels.segmentation import segment

    rng = np.random.default_rng(7)
    values = rng.normal(0, 1, 400_000)
    offsets = np.arange(0, 400_001, 400, dtype=np.int64)
    args = (values, offsets, np.ones(1000, dtype=bool), 5, 15, True, np.nan, True, np.nan,
            True, True, True)
    segment.serial(*args)
    started, done, counts = threading.Event(), threading.Event(), []

    def run():
        started.set()
        segment.serial(*args)
        done.set()

    worker = threading.Thread(target=run)
    worker.start()
    started.wait()
    time.sleep(0.001)
    while not done.is_set():
        counts.append(1)
    worker.join()
    assert len(counts) > 1000


def test_the_thread_count_is_checked(native, monkeypatch):
    from fastperf.kernels.descriptive import order_statistics

    _, args = threaded_input("order_statistics")
    for bad in ("0", "two", "-1", "1.5", "\u00b2"):
        monkeypatch.setenv(builds.THREADS_ENV, bad)
        with pytest.raises(InputError, match=builds.THREADS_ENV):
            order_statistics(*args, n_rows=10 ** 9)
    monkeypatch.setenv(builds.THREADS_ENV, " 2 ")
    assert builds.thread_count() == 2
    monkeypatch.delenv(builds.THREADS_ENV)
    assert builds.thread_count() >= 1


def test_the_default_thread_count_keeps_to_the_cgroup_cpu_quota(tmp_path, monkeypatch):
    """Without `FASTPERF_THREADS`, the threads are the CPUs of the process's affinity, at most
    its control group's CPU quota rounded up (a container given 1.5 CPUs of a 64-CPU host: 2),
    the least quota along the group's path, from cgroup v2's ``cpu.max`` or v1's CFS files
    (the kernel's formats written out here); no limit where none is set or readable."""
    def write(path, text):
        path.mkdir(parents=True, exist_ok=True)
        for name, content in text.items():
            (path / name).write_text(content)

    def limit(membership, case):
        (tmp_path / case).write_text(membership)
        return builds.cgroup_cpu_limit(str(tmp_path / "fs"), str(tmp_path / case))

    fs = tmp_path / "fs"
    write(fs, {"cpu.max": "max 100000\n"})
    write(fs / "ci", {"cpu.max": "150000 100000\n"})
    write(fs / "ci" / "job", {"cpu.max": "max 100000\n"})
    write(fs / "wide", {"cpu.max": "800000 100000\n"})
    write(fs / "wide" / "narrow", {"cpu.max": "50000 100000\n"})
    write(fs / "cpu,cpuacct" / "docker" / "x", {"cpu.cfs_quota_us": "250000\n",
                                                "cpu.cfs_period_us": "100000\n"})
    write(fs / "cpu" / "free", {"cpu.cfs_quota_us": "-1\n", "cpu.cfs_period_us": "100000\n"})
    write(fs / "bad", {"cpu.max": "lots 100000\n"})
    assert limit("0::/ci/job\n", "v2") == 1.5  # the parent's quota binds its child
    assert limit("0::/wide/narrow\n", "nested") == 0.5  # the least along the path
    assert limit("0::/\n", "unlimited") is None
    assert limit("4:cpu,cpuacct:/docker/x\n3:memory:/docker/x\n0::/\n", "v1") == 2.5
    assert limit("2:cpuacct,cpu:/free\n", "v1-none") is None
    assert limit("0::/bad\n", "garbage") is None
    assert limit("0::/not/there\n", "missing") is None
    write(tmp_path / "outside", {"cpu.max": "50000 100000\n"})  # beside the mount, not in it
    assert limit("0::/../outside\n", "escape") is None
    assert limit("junk\n0::/ci\n", "junk") == 1.5  # a malformed line is skipped
    (tmp_path / "bytes").write_bytes(b"0::/caf\xe9\n0::/ci\n")  # a name that is not UTF-8
    assert builds.cgroup_cpu_limit(str(fs), str(tmp_path / "bytes")) == 1.5
    assert builds.cgroup_cpu_limit(str(fs), str(tmp_path / "no-such-file")) is None

    monkeypatch.delenv(builds.THREADS_ENV, raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(64)), raising=False)
    for quota, threads in ((None, 64), (1.5, 2), (0.25, 1), (200.0, 64)):
        monkeypatch.setattr(builds, "cgroup_cpu_limit", lambda quota=quota: quota)
        assert builds.thread_count() == threads
    monkeypatch.setenv(builds.THREADS_ENV, "8")  # set: taken as it is
    assert builds.thread_count() == 8


def test_threaded_calls_compile_nothing(native):
    """A process whose calls run on threads (changepoints of 400 histories: the segmentation and
    the Hodges-Lehmann intervals in chunks) still imports no Numba: every chunk's arguments
    have the types of a native build."""
    code = """
import json, sys
import numpy as np, pyarrow as pa
import fastperf
rng = np.random.default_rng(1)
n = 400 * 300
commit = np.tile(np.arange(300), 400)
table = pa.table({"series": np.repeat(np.arange(400), 300), "commit": commit,
                  "value": np.exp(rng.normal(0, 0.02, n) + 0.2 * (commit > 150))})
result = fastperf.changepoints(table, by="series", order="commit")
print(json.dumps({"numba": "numba" in sys.modules, "changes": result.summary["changes"]}))
"""
    seen = json.loads(run_python(code, env={builds.THREADS_ENV: "2"}).splitlines()[-1])
    assert seen["numba"] is False
    assert 400 <= seen["changes"] <= 404  # each 20 % step (sd 2 %) found; a rare false one


FORKED = """
import json, multiprocessing, os, sys
sys.path.insert(0, {tests!r})
from test_native import threaded_input
kernel, args = threaded_input("order_statistics")
expected = kernel.serial(*args)
kernel(*args, n_rows=10 ** 9)  # the parent's workers start

def child(_):
    import numpy as np
    return bool(np.array_equal(kernel(*args, n_rows=10 ** 9), expected, equal_nan=True))

with multiprocessing.get_context("fork").Pool(1) as pool:
    print(json.dumps(pool.map_async(child, [0]).get(timeout=60)))
"""


def test_a_process_forked_after_threaded_calls_runs_them_too(native):
    """A child forked after the parent's workers started (multiprocessing's fork start method)
    has none of their threads: its threaded calls start workers of its own instead of waiting
    for ones that do not exist (`builds.Workers.reset` after a fork)."""
    out = run_python(FORKED.format(tests=str(Path(__file__).resolve().parent)),
                     env={builds.THREADS_ENV: "2"})
    assert json.loads(out.splitlines()[-1]) == [True]


UNSERVED = """
import json, sys
import numpy as np
sys.path.insert(0, {tests!r})
from test_native import threaded_input
kernel, (values, offsets, sizes, low, high) = threaded_input("order_statistics")
result = kernel(values, offsets.astype(np.int32), sizes, low, high, n_rows=10 ** 9)
print(json.dumps(result.tolist()))
"""


def test_a_call_no_native_build_serves_runs_in_one_thread(native):
    """A call whose argument types no native build serves (int32 offsets) is not cut into
    chunks: it runs the JIT build in the caller's thread (threads each starting the JIT at once
    raced in it), with the result of the native build on int64 offsets."""
    kernel, args = threaded_input("order_statistics")
    expected = kernel.serial(*args)
    out = run_python(UNSERVED.format(tests=str(Path(__file__).resolve().parent)),
                     env={builds.THREADS_ENV: "4"})
    got = np.array(json.loads(out.splitlines()[-1]), dtype=float)
    assert np.array_equal(got, expected, equal_nan=True)


def test_a_bad_thread_count_is_one_line_on_the_command_line(tmp_path):
    """`FASTPERF_THREADS=two fastperf ...`, on a table large enough for threads and on a small
    one: exit 2 and one line naming the variable, no traceback."""
    import pyarrow.parquet as pq

    rng = np.random.default_rng(2)
    pq.write_table(pa.table({"series": np.repeat(np.arange(400), 300),
                             "commit": np.tile(np.arange(300), 400),
                             "value": np.exp(rng.normal(0, 0.02, 120_000))}),
                   tmp_path / "h.parquet")
    for args in (["changepoints", str(tmp_path / "h.parquet"), "--benchmark", "series",
                  "--order", "commit"],
                 ["compare", str(EXAMPLES / "old.txt"), str(EXAMPLES / "new.txt")]):  # small
        done = subprocess.run([sys.executable, "-m", "fastperf", *args], capture_output=True,
                              text=True, timeout=600, env={**os.environ, builds.THREADS_ENV: "two"},
                              cwd=Path(__file__).resolve().parent)  # the installed fastperf
        assert done.returncode == 2, done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and builds.THREADS_ENV in lines[0] and "Traceback" not in lines[0]

