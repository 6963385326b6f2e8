"""``python -m fastperf``: the same as the ``fastperf`` command."""
import sys

from fastperf.cli import command

sys.exit(command())
