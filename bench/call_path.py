"""The fastperf modules one `compare` call passes through (docs/architecture.md).

Reads the example files, then runs ``fastperf.compare`` on them twice under a profile hook that
collects the module of every Python frame entered: the first call (in a fresh process, so it
also runs the modules it imports) and a warm second call. Prints, for each, the count of
fastperf modules and the modules. Run it from the repository root::

    python bench/call_path.py
"""
from __future__ import annotations

import sys

import fastperf

FILES = ["examples/old.txt", "examples/new.txt"]


def call_path_modules(table) -> list[str]:
    """The distinct fastperf modules whose code runs during one `compare` call on `table`."""
    seen: set[str] = set()

    def hook(frame, event, arg):
        if event == "call":
            seen.add(frame.f_globals.get("__name__", ""))

    sys.setprofile(hook)
    try:
        fastperf.compare(table, baseline="old", candidate="new")
    finally:
        sys.setprofile(None)
    return sorted(m for m in seen if m == "fastperf" or m.startswith("fastperf."))


def main() -> None:
    table = fastperf.read(FILES)
    for label in ("first call", "warm call"):
        modules = call_path_modules(table)
        print(f"{label}: {len(modules)} modules")
        for module in modules:
            print(" ", module)


if __name__ == "__main__":
    main()
