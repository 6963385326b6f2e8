import os
from pathlib import Path

import pytest

#: The project's shared folder (seeds, peer data), beside the repository unless FASTPERF_SHARED
#: says otherwise. Tests read real files from it, so its absence stops the run: a missing
#: oracle must not turn into skipped tests.
SHARED = Path(os.environ.get("FASTPERF_SHARED", Path(__file__).resolve().parents[1].parent / "shared"))
if not (SHARED / "data" / "peers").is_dir():
    raise pytest.UsageError(
        f"shared data not found at {SHARED}: clone fastperf next to its shared/ folder, or set "
        "FASTPERF_SHARED to that folder"
    )


@pytest.fixture
def parallel_always(monkeypatch):
    """Make every group kernel take its parallel (prange) build, whatever the input size."""
    import fastperf.kernels._compile as compile_mod

    monkeypatch.setattr(compile_mod, "FORCE_PARALLEL", True)
