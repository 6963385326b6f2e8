"""The `fastperf` command called in process, for the CLI tests: exit status and output."""
from __future__ import annotations

import contextlib
import io
from pathlib import Path

from fastperf.cli import main

#: Where the command's subprocesses run: outside the checkout's root, so that `python -m
#: fastperf` imports the installed package, not the source tree (which has no native kernels
#: in a non-editable install).
OUTSIDE_CHECKOUT = Path(__file__).resolve().parent


def run_cli(argv):
    """(exit status, stdout, stderr) of an in-process ``fastperf`` call."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main([str(a) for a in argv])
        except SystemExit as exc:  # argparse: --help (0) or a bad option (2)
            code = exc.code
    return code, out.getvalue(), err.getvalue()


def assert_clean_error(code, err, *, match=None):
    """Exit 2, one line on stderr, no traceback."""
    assert code == 2, err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("fastperf: error: ")
    if match is not None:
        assert match in lines[0], lines[0]
