"""fastperf.special_functions: scipy's special-function ufuncs loaded without scipy.special's
package import.

Oracles: ``scipy.special`` itself, imported the usual way (the functions must be the very
objects it exports, so every result is scipy's bit for bit), ``sys.modules`` (what a process
imported) and a process that never met fastperf (what ``scipy.special`` looks like there). Each
case runs in a fresh interpreter: the pytest process has long imported scipy.special.
"""
import json
import subprocess
import sys

import pytest

from fastperf.special_functions import FUNCTIONS


def run_python(code: str) -> dict:
    """Run `code` in a new interpreter; its last stdout line, read as JSON."""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


FIRST_USE = """
import json, sys, threading
{before}
import fastperf.special_functions as sf
imported_before = "scipy.special" in sys.modules
values = {{name: float(getattr(sf, name)(*args)) for name, args in {arguments!r}.items()}}
alone, package_after = sf.loaded_alone(), "scipy.special" in sys.modules
private = sorted(m for m in sys.modules if m.startswith("scipy.special."))
import scipy.special
same = {{name: getattr(sf, name) is getattr(scipy.special, name) for name in sf.FUNCTIONS}}
expected = {{name: float(getattr(scipy.special, name)(*args))
            for name, args in {arguments!r}.items()}}
import scipy.stats
t = scipy.stats.ttest_ind([1.0, 2.0, 3.0, 4.0], [2.0, 3.5, 4.0, 6.0])
print(json.dumps(dict(alone=alone, imported_before=imported_before,
                      package_after=package_after, private=private, same=same, values=values,
                      expected=expected, ttest=[float(t.statistic), float(t.pvalue)],
                      names=sorted(dir(scipy.special)))))
"""
#: One call of each function, arguments away from trivial values.
ARGUMENTS = {"ndtr": (-1.3,), "ndtri": (0.025,), "stdtr": (7, -2.1), "stdtrit": (7, 0.975),
             "fdtr": (3, 20, 2.5), "fdtrc": (3, 20, 2.5), "fdtri": (3, 20, 0.95),
             "chdtri": (4, 0.05), "bdtr": (3, 10, 0.4), "smirnov": (12, 0.3),
             "gammaln": (7.5,), "betaincinv": (2.0, 3.0, 0.3), "betainccinv": (2.0, 3.0, 0.3)}

NORMAL = """
import json, scipy.special, scipy.stats
t = scipy.stats.ttest_ind([1.0, 2.0, 3.0, 4.0], [2.0, 3.5, 4.0, 6.0])
print(json.dumps(dict(names=sorted(dir(scipy.special)),
                      ttest=[float(t.statistic), float(t.pvalue)])))
"""


def first_use(before: str = "") -> dict:
    return run_python(FIRST_USE.format(before=before, arguments=ARGUMENTS))


def test_every_function_has_a_call_here():
    assert set(ARGUMENTS) == set(FUNCTIONS)


def test_a_single_threaded_process_loads_the_functions_alone_and_they_are_scipys():
    seen, normal = first_use(), run_python(NORMAL)
    assert seen["alone"] and not seen["imported_before"] and not seen["package_after"]
    assert all(seen["same"].values()), seen["same"]
    assert seen["values"] == seen["expected"]
    # scipy.special imported afterwards is the package a process without fastperf gets, but for
    # the private compiled submodules loaded alone, which its __init__ does not bind itself
    loaded_alone = {name.rsplit(".", 1)[1] for name in seen["private"]}
    assert "_ufuncs" in loaded_alone
    assert set(normal["names"]) - set(seen["names"]) == loaded_alone - {"_ufuncs"}
    assert set(seen["names"]) - set(normal["names"]) == set()
    assert seen["ttest"] == normal["ttest"]


@pytest.mark.parametrize("before", [
    "import scipy.special",
    "threading.Thread(target=threading.Event().wait, args=(60,), daemon=True).start()",
])
def test_where_loading_alone_is_not_safe_scipy_special_is_imported(before):
    """scipy.special already imported, or a second thread that could import it meanwhile."""
    seen = first_use(before)
    assert not seen["alone"] and seen["package_after"]
    assert all(seen["same"].values()) and seen["values"] == seen["expected"]


def test_a_scipy_without_the_expected_layout_falls_back_to_the_package():
    seen = first_use("import fastperf.special_functions as sf\n"
                     "sf.EXTENSION = 'scipy.special._no_such_module'")
    assert not seen["alone"] and seen["package_after"]
    assert all(seen["same"].values()) and seen["values"] == seen["expected"]
    assert seen["ttest"] == run_python(NORMAL)["ttest"]


def test_other_names_are_refused():
    import fastperf.special_functions as special_functions

    with pytest.raises(AttributeError, match="erfinv"):
        special_functions.erfinv  # noqa: B018
