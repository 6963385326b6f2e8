"""Test configuration: the shared folder and the conformance suite; common fixtures.

The suite stands alone: ``pip install ".[test]" && pytest`` in a fresh clone runs every test
on data the tests make themselves (`fastperf.simulate`, files written into ``tmp_path``) or that
fastperf ships (``examples/``). The *conformance suite*, ``tests/conformance/``, also checks
fastperf against files of other projects (the peer tools' own test data, real tool outputs, the
project's data generator) kept in the project's shared folder, which is not part of the
repository. Where that folder is looked for:

- ``FASTPERF_SHARED``, when set and not empty (a path that does not exist then means: absent);
- otherwise ``<repository>/../shared``, beside the clone.

Found (it holds ``data/peers``): the conformance suite runs, and the terminal summary says
against which folder. Absent: every conformance test is skipped with the reason, and the summary
says plainly that the conformance suite did not run.

``FASTPERF_REQUIRE_SHARED=1`` (``.ci/run`` sets it) makes both of those failures: an absent
folder stops pytest before collection (usage error, exit status 4), and a session that ends with
no conformance test run fails (exit status 1), so CI cannot pass without the conformance suite.

Every test under ``tests/conformance/`` gets the ``conformance`` marker (registered in
pyproject.toml): ``pytest -m conformance`` runs only that suite, ``-m "not conformance"`` the rest.

Hypothesis runs derandomized: every property test draws the same examples on every run (seeded
from a hash of the test's source, no example database carried between runs), so CI is
deterministic and a failure replays. ``FASTPERF_HYPOTHESIS_RANDOM=1`` loads the profile
``random`` instead (fresh examples, for exploratory runs); ``--hypothesis-profile=NAME`` picks
either by name. The header of the run says which is in force.
"""
import os
import shutil
from pathlib import Path

import pytest
from hypothesis import settings

REPO = Path(__file__).resolve().parents[1]
CONFORMANCE_DIR = Path(__file__).resolve().parent / "conformance"
#: The project's shared folder (seeds, peer data, tools): FASTPERF_SHARED, else beside the clone.
SHARED = Path(os.environ["FASTPERF_SHARED"]).expanduser() if os.environ.get("FASTPERF_SHARED") \
    else REPO.parent / "shared"
SHARED_FOUND = (SHARED / "data" / "peers").is_dir()
REQUIRE_SHARED = os.environ.get("FASTPERF_REQUIRE_SHARED", "").strip() not in ("", "0")
NOT_FOUND = (f"conformance suite not run: shared folder not found at {SHARED}; "
             "set FASTPERF_SHARED to the project's shared folder to run it")

_conformance = {"passed": 0, "failed": 0, "skipped": 0}

# Loaded here, before any test module is imported: a test's own @settings(...) inherits the rest.
settings.register_profile("derandomized", derandomize=True, database=None)
settings.register_profile("random", derandomize=False)
FRESH_EXAMPLES = os.environ.get("FASTPERF_HYPOTHESIS_RANDOM", "").strip() not in ("", "0")
HYPOTHESIS_PROFILE = "random" if FRESH_EXAMPLES else "derandomized"
settings.load_profile(HYPOTHESIS_PROFILE)


def pytest_configure(config):
    if REQUIRE_SHARED and not SHARED_FOUND:
        raise pytest.UsageError(f"{NOT_FOUND} (FASTPERF_REQUIRE_SHARED is set: the conformance suite must run)")


def pytest_report_header(config):
    state = "found" if SHARED_FOUND else "not found: conformance tests will be skipped"
    active = settings.default
    return [f"fastperf shared folder: {SHARED} ({state})",
            f"hypothesis: derandomize={active.derandomize}, database={active.database!r} "
            f"(tests/conftest.py loads {HYPOTHESIS_PROFILE!r}; "
            "FASTPERF_HYPOTHESIS_RANDOM=1 draws fresh examples)"]


@pytest.hookimpl(tryfirst=True)  # before -m selects on the marker added here
def pytest_collection_modifyitems(config, items):
    skip = pytest.mark.skip(reason=NOT_FOUND)
    for item in items:
        if CONFORMANCE_DIR in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.conformance)
        if item.get_closest_marker("conformance") is not None and not SHARED_FOUND:
            item.add_marker(skip, append=False)  # first: before an empty parameter set's own skip


def pytest_runtest_logreport(report):
    if "conformance" not in report.keywords:
        return
    if report.when == "call" or (report.when == "setup" and not report.passed):
        outcome = "passed" if report.passed else "skipped" if report.skipped else "failed"
        _conformance[outcome] += 1


def pytest_sessionfinish(session, exitstatus):
    ran = _conformance["passed"] + _conformance["failed"]
    if REQUIRE_SHARED and ran == 0 and exitstatus == 0:
        _conformance["required_but_none_ran"] = True
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    c = _conformance
    if not SHARED_FOUND:
        line = f"{NOT_FOUND} ({c['skipped']} conformance tests skipped)"
    elif c["passed"] + c["failed"] + c["skipped"] == 0:
        line = f"conformance suite: shared folder found at {SHARED}; no conformance test selected"
    else:
        line = (f"conformance suite ran against {SHARED}: {c['passed']} passed, {c['failed']} failed, "
                f"{c['skipped']} skipped")
    terminalreporter.write_sep("-", "fastperf conformance suite")
    terminalreporter.write_line(line)
    if c.get("required_but_none_ran"):
        terminalreporter.write_line("FASTPERF_REQUIRE_SHARED is set but no conformance test ran: failing the run",
                                    red=True)


@pytest.fixture
def parallel_always(monkeypatch):
    """Make every group kernel take its parallel (prange) build, whatever the input size."""
    import fastperf.kernels.builds as builds

    monkeypatch.setattr(builds, "FORCE_PARALLEL", True)


def spark_missing() -> str | None:
    """Why Spark cannot run here (pyspark or a Java runtime missing), or None."""
    try:
        import pyspark  # noqa: F401  (optional: the spark extra)
    except ImportError:
        return "pyspark is not installed (pip install fastperf[spark])"
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        return "no Java runtime (java not on PATH, no JAVA_HOME)"
    return None


@pytest.fixture(scope="session")
def spark():
    """A local Spark session (2 cores, Arrow transfers), shared by the test modules that use
    Spark; skipped where pyspark or Java is missing, a failure under FASTPERF_REQUIRE_SPARK=1."""
    reason = spark_missing()
    if reason:
        if os.environ.get("FASTPERF_REQUIRE_SPARK") == "1":
            pytest.fail(f"FASTPERF_REQUIRE_SPARK=1 but {reason}")
        pytest.skip(reason)
    from pyspark.sql import SparkSession  # deferred: optional dependency

    session = (SparkSession.builder.master("local[2]").appName("fastperf-tests")
               .config("spark.sql.shuffle.partitions", "3")
               .config("spark.default.parallelism", "2")
               .config("spark.sql.execution.arrow.pyspark.enabled", "true")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
