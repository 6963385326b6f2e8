"""fastperf.special_functions: scipy's special-function ufuncs loaded without scipy.special's
package import.

Oracles: ``scipy.special`` itself, imported the usual way (the functions must be the very
objects it exports, so every result is scipy's bit for bit), ``sys.modules`` (what a process
imported) and a process that never met fastperf (what ``scipy.special`` looks like there: its
names, its loader, how its ufuncs pickle). Each case runs in a fresh interpreter: the pytest
process has long imported scipy.special.
"""
import json
import os
import subprocess
import sys

import pytest

from fastperf.special_functions import FUNCTIONS, special_function


def run_python(code: str, env: dict | None = None) -> dict:
    """Run `code` in a new interpreter; its last stdout line, read as JSON."""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=300, env={**os.environ, **(env or {})})
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


#: After `before`, one call of each function through fastperf, then scipy.special imported the
#: usual way and compared.
FIRST_USE = """
import json, pickle, sys, threading
{before}
import fastperf.special_functions as sf
imported_before = "scipy.special" in sys.modules
values = {{name: float(sf.special_function(name)(*args)) for name, args in {arguments!r}.items()}}
alone, package_after = sf.loaded_alone(), "scipy.special" in sys.modules
private = sorted(m for m in sys.modules if m.startswith("scipy.special."))
ufunc = sf.special_function("ndtr")
pickled = pickle.dumps(ufunc)
import scipy.special
same = {{name: sf.special_function(name) is getattr(scipy.special, name) for name in sf.FUNCTIONS}}
expected = {{name: float(getattr(scipy.special, name)(*args))
            for name, args in {arguments!r}.items()}}
import scipy.special._gufuncs
bound = [name for name in private if hasattr(scipy.special, name.rpartition(".")[2])]
import scipy.stats
t = scipy.stats.ttest_ind([1.0, 2.0, 3.0, 4.0], [2.0, 3.5, 4.0, 6.0])
print(json.dumps(dict(
    alone=alone, imported_before=imported_before, package_after=package_after, private=private,
    bound=bound, same=same, values=values, expected=expected,
    ttest=[float(t.statistic), float(t.pvalue)], names=sorted(dir(scipy.special)),
    loader=type(scipy.special.__loader__).__name__,
    spec_loader=type(scipy.special.__spec__.loader).__name__,
    finders=[type(f).__name__ for f in sys.meta_path],
    pickle_names_fastperf=b"fastperf" in pickled, unpickled_same=pickle.loads(pickled) is ufunc,
    gufuncs=scipy.special._gufuncs is sys.modules["scipy.special._gufuncs"])))
"""
#: One call of each function, arguments away from trivial values.
ARGUMENTS = {"ndtr": (-1.3,), "ndtri": (0.025,), "stdtr": (7, -2.1), "stdtrit": (7, 0.975),
             "fdtr": (3, 20, 2.5), "fdtrc": (3, 20, 2.5), "fdtri": (3, 20, 0.95),
             "chdtri": (4, 0.05), "bdtr": (3, 10, 0.4), "smirnov": (12, 0.3),
             "gammaln": (7.5,), "betaincinv": (2.0, 3.0, 0.3), "betainccinv": (2.0, 3.0, 0.3)}

NORMAL = """
import json, scipy.special, scipy.stats, sys
t = scipy.stats.ttest_ind([1.0, 2.0, 3.0, 4.0], [2.0, 3.5, 4.0, 6.0])
print(json.dumps(dict(names=sorted(dir(scipy.special)),
                      ttest=[float(t.statistic), float(t.pvalue)],
                      loader=type(scipy.special.__loader__).__name__,
                      finders=[type(f).__name__ for f in sys.meta_path])))
"""
#: A thread that outlives the first use, started by `threading` or by `_thread` (not counted by
#: threading.active_count).
THREAD = "threading.Thread(target=threading.Event().wait, args=(60,), daemon=True).start()"
RAW_THREAD = ("import _thread, time\n"
              "def wait():\n    time.sleep(60)\n"
              "_thread.start_new_thread(wait, ())\n"
              "time.sleep(0.1)")


def first_use(before: str = "", env: dict | None = None) -> dict:
    return run_python(FIRST_USE.format(before=before, arguments=ARGUMENTS), env)


@pytest.fixture(scope="module")
def normal() -> dict:
    return run_python(NORMAL)


def test_every_function_has_a_call_here():
    assert set(ARGUMENTS) == set(FUNCTIONS)


def check_same_as_scipy(seen: dict, normal: dict) -> None:
    """The functions are scipy.special's, and scipy.special is as in a process without fastperf."""
    assert all(seen["same"].values()), seen["same"]
    assert seen["values"] == seen["expected"]
    assert seen["names"] == normal["names"]
    assert seen["bound"] == seen["private"] and seen["gufuncs"]
    assert seen["loader"] == seen["spec_loader"] == normal["loader"]
    assert seen["finders"] == normal["finders"]
    assert seen["ttest"] == normal["ttest"]
    assert not seen["pickle_names_fastperf"] and seen["unpickled_same"]


def test_a_single_threaded_process_loads_the_functions_alone_and_they_are_scipys(normal):
    seen = first_use()
    assert seen["alone"] and not seen["imported_before"] and not seen["package_after"]
    assert "scipy.special._ufuncs" in seen["private"]
    check_same_as_scipy(seen, normal)


def test_finding_the_package_before_importing_it_keeps_the_binding(normal):
    seen = first_use("import fastperf.special_functions as sf, importlib.util\n"
                     "sf.special_function('ndtr')\n"
                     "importlib.util.find_spec('scipy.special')")
    assert seen["alone"]
    check_same_as_scipy(seen, normal)


@pytest.mark.parametrize("before, env", [
    ("import scipy.special", None),
    (THREAD, None),
    (RAW_THREAD, None),
    ("", {"SCIPY_ARRAY_API": "1"}),
], ids=["imported", "thread", "_thread", "array-api"])
def test_where_loading_alone_is_not_safe_scipy_special_is_imported(before, env):
    """scipy.special already imported; a second thread that could import it meanwhile; scipy's
    array-API mode, where scipy.special exports wrappers of the ufuncs."""
    seen = first_use(before, env)
    assert not seen["alone"] and seen["package_after"]
    assert all(seen["same"].values()) and seen["values"] == seen["expected"]


def test_a_scipy_without_the_expected_layout_falls_back_to_the_package(normal):
    seen = first_use("import fastperf.special_functions as sf\n"
                     "sf.EXTENSION = 'scipy.special._no_such_module'")
    assert not seen["alone"] and seen["package_after"]
    check_same_as_scipy(seen, normal)


def test_a_call_while_loading_is_refused_not_deadlocked():
    """A signal handler or finaliser of the loading thread asking for a function: an error."""
    code = """
import json, sys
import fastperf.special_functions as sf
seen = []
class Hook:  # runs inside the load, as a signal handler would
    def find_spec(self, name, path=None, target=None):
        if name == "scipy.special._ufuncs" and not seen:
            try:
                sf.special_function("ndtr")
                seen.append("no error")
            except RuntimeError as exc:
                seen.append(str(exc))
        return None
sys.meta_path.insert(0, Hook())
value = float(sf.special_function("ndtr")(0.0))
print(json.dumps(dict(seen=seen, value=value, alone=sf.loaded_alone())))
"""
    seen = run_python(code)
    assert seen["seen"] == ["fastperf's special functions were asked for while loading"]
    assert seen["value"] == 0.5 and seen["alone"]


def test_other_names_are_refused():
    with pytest.raises(ValueError, match="erfinv"):
        special_function("erfinv")
