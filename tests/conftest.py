from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[1].parent / "shared"


@pytest.fixture
def parallel_always(monkeypatch):
    """Make every group kernel take its parallel (prange) build, whatever the input size."""
    import fastperf.kernels._compile as compile_mod

    monkeypatch.setattr(compile_mod, "PARALLEL_MIN_ROWS", 0)
