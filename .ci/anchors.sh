#!/usr/bin/env bash
# Anchors for tests/test_changepoints_anchors.py and bench/test_changepoints_bench.py (issue 22).
# Both packages pin old numpy/scipy (numpy<2 / numpy==2.2, scipy<1.17) that conflict with ours:
# install them with --no-deps, then only the small packages their algorithm modules import.
# Checked with Python 3.11, numpy 2.4.6, scipy 1.17.1, pyarrow 26: their versions stay unchanged.
set -euo pipefail
# signal-processing-algorithms is an sdist (poetry setup.py) that builds an optional C extension
# (_e_divisive.so, built with gcc here). Keep build isolation ON (the default): the venv has no
# `wheel`, and --no-build-isolation fails with "invalid command 'bdist_wheel'".
# --ignore-requires-python: signal-processing-algorithms declares python ~3.11 only; its
# algorithm module (and its pure-Python fallback when the C extension does not build) runs on
# later versions too.
# The anchors are required (issue 41): a failed install or import exits non-zero, and CI (which
# sets FASTPERF_REQUIRE_ANCHORS=1) fails rather than skipping the tests that need them.
fail() {
    echo "anchors: $1; the change-point anchor tests need them (FASTPERF_REQUIRE_ANCHORS=1 in CI)" >&2
    exit 1
}
python -m pip install --quiet --no-deps --ignore-requires-python \
    signal-processing-algorithms==2.1.6 apache-otava==0.8.0 \
    || fail "could not install signal-processing-algorithms 2.1.6 and apache-otava 0.8.0"
# import-time deps of signal_processing_algorithms.energy_statistics (cext_calculator: structlog;
# energy_statistics: more_itertools.pairwise), within the package's declared ranges.
# otava.analysis / otava.series / otava.change_point_divisive need only numpy + scipy (already there).
python -m pip install --quiet "more-itertools>=8.2.0,<9.0.0" "structlog>=24.2,<25.0" \
    || fail "could not install more-itertools and structlog (the anchors' import-time deps)"
python - <<'PY' || fail "the anchors are installed but do not import"
import numpy
from signal_processing_algorithms.energy_statistics import energy_statistics  # noqa: F401
from signal_processing_algorithms.energy_statistics.cext_calculator import C_EXTENSION_LOADED
import otava.analysis, otava.series  # noqa: F401,E401
print("anchors ok; numpy", numpy.__version__, "; MongoDB C extension loaded:", C_EXTENSION_LOADED)
PY
# note: `pip check` then reports the unmet pins (numpy<2, setuptools>=65.5.1, gevent, configargparse,...);
# they are deliberate and not needed by the algorithm modules.
