"""What a hostile file costs `fastperf.read` before it is refused (docs/robustness.md).

Builds decompression bombs (gzip, bzip2, xz, Zstandard: whitespace expanding 1000-fold or
more) and hostile JSON documents in a temporary folder, reads each with `fastperf.read` in a
fresh subprocess, and prints a Markdown table: the file's size, what it expands to, wall
seconds of the `read` call, the peak resident memory the call added (Linux only: see `CHILD`),
the process's peak resident memory during the call (imports included), and how it ended. Run
it from the repository root::

    python bench/hostile_files.py               # every case
    python bench/hostile_files.py gzip JSON     # the cases whose name holds "gzip" or "JSON"

A bomb is built by concatenating one compressed block (every format allows several streams or
members in a file), so building a 1 GiB bomb takes a second.
"""
from __future__ import annotations

import bz2
import gzip
import json
import lzma
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa

MIB = 1 << 20
GIB = 1 << 30
#: One block of content, compressed once and repeated.
BLOCK = 64 * MIB

COMPRESSORS: dict[str, Callable[[bytes], bytes]] = {
    "gzip": lambda raw: gzip.compress(raw, compresslevel=9),
    "bz2": lambda raw: bz2.compress(raw, compresslevel=9),
    "xz": lambda raw: lzma.compress(raw, preset=9),
    "zstd": lambda raw: pa.Codec("zstd", compression_level=19).compress(raw, asbytes=True),
}

#: The child: import the readers, then time one `read` and take the memory it added: the peak
#: resident size (``VmHWM``, reset through ``/proc/self/clear_refs`` after the imports) minus the
#: resident size before the call. (``ru_maxrss`` would not do: after ``fork`` and ``exec`` it
#: keeps the parent's peak, and the parent compressed the bomb.)
CHILD = """
import json, re, sys, time
import fastperf, fastperf.io.read
path, options = sys.argv[1], json.loads(sys.argv[2])
def status(field):
    with open("/proc/self/status") as fh:
        return int(re.search(field + r":\\s+(\\d+) kB", fh.read()).group(1))
with open("/proc/self/clear_refs", "w") as fh:
    fh.write("5")
before = status("VmRSS")
start = time.perf_counter()
try:
    fastperf.read(path, **options)
    outcome = "read"
except fastperf.InputError as exc:
    outcome = "InputError: " + str(exc)
except MemoryError:
    outcome = "MemoryError"
seconds = time.perf_counter() - start
peak = status("VmHWM")
print(json.dumps({"seconds": seconds, "added_kib": max(0, peak - before), "peak_kib": peak,
                  "outcome": outcome}))
"""


def bomb(folder: Path, kind: str, size: int, block: bytes = b" " * BLOCK) -> tuple[Path, int]:
    """A `kind`-compressed file of `size` bytes of `block` repeated (whitespace by default)."""
    packed = COMPRESSORS[kind](block)
    path = folder / f"bomb-{size // MIB}MiB.{kind}"
    with open(path, "wb") as fh:
        for _ in range(size // len(block)):
            fh.write(packed)
    return path, size


def repeated(folder: Path, name: str, head: bytes, item: bytes, tail: bytes,
             size: int) -> tuple[Path, int]:
    """An uncompressed document ``head + item * n + tail`` of about `size` bytes."""
    path = folder / name
    count = (size - len(head) - len(tail)) // len(item)
    with open(path, "wb") as fh:
        fh.write(head)
        chunk = item * (MIB // len(item))
        for _ in range(count // (MIB // len(item))):
            fh.write(chunk)
        fh.write(tail)
    return path, path.stat().st_size


def packed_document(folder: Path, kind: str, head: bytes, item: bytes, tail: bytes,
                    size: int) -> tuple[Path, int]:
    """A `kind`-compressed document ``head + item * n + tail`` of about `size` bytes."""
    content = head + item * ((size - len(head) - len(tail)) // len(item)) + tail
    path = folder / f"document.json.{kind}"
    path.write_bytes(COMPRESSORS[kind](content))
    return path, len(content)


def cases(folder: Path) -> list[tuple[str, Callable[[], tuple[Path, int]], dict]]:
    """``(name, build, read options)`` of every case."""
    out: list[tuple[str, Callable[[], tuple[Path, int]], dict]] = []
    for kind in COMPRESSORS:
        out.append((f"{kind} bomb, 1 GiB of whitespace",
                    lambda kind=kind: bomb(folder, kind, GIB), {}))
    out.append(("gzip bomb, 16 GiB of whitespace", lambda: bomb(folder, "gzip", 16 * GIB), {}))
    out.append(("gzip bomb, 1 GiB, max_expansion=None (the 256 MiB cap)",
                lambda: bomb(folder, "gzip", GIB), {"max_expansion": None}))
    out.append(("xz bomb, 1 GiB, max_expansion=None (the 256 MiB cap)",
                lambda: bomb(folder, "xz", GIB), {"max_expansion": None}))
    out.append(("JSON, 100 MB of whitespace in {}",
                lambda: repeated(folder, "blank.json", b"{", b" " * 64, b"}", 100 * MIB), {}))
    out.append(("JSON, 100 MB of [] repeated",
                lambda: repeated(folder, "lists.json", b"[", b"[],", b"[]]", 100 * MIB), {}))
    out.append(("JSON, 100 MB nested [[[...",
                lambda: repeated(folder, "nested.json", b"", b"[" * 64, b"", 100 * MIB), {}))
    out.append(('JSON, 100 MB of {} under "benchmarks"',
                lambda: repeated(folder, "objects.json", b'{"benchmarks": [', b"{},", b"{}]}",
                                 100 * MIB), {}))
    out.append(('gzip JSON, 7 MiB of {} under "benchmarks"',
                lambda: packed_document(folder, "gzip", b'{"benchmarks": [', b"{},", b"{}]}",
                                        7 * MIB), {}))
    out.append(('gzip JSON, 100 MB of {} under "benchmarks", max_expansion=None',
                lambda: packed_document(folder, "gzip", b'{"benchmarks": [', b"{},", b"{}]}",
                                        100 * MIB), {"max_expansion": None}))
    out.append(("text, 100 MB of whitespace",
                lambda: repeated(folder, "blank.txt", b"", b" " * 64, b"", 100 * MIB), {}))
    return out


def measure(path: Path, options: dict) -> dict:
    """Seconds, added peak memory and outcome of `fastperf.read(path, **options)`."""
    done = subprocess.run([sys.executable, "-c", CHILD, str(path), json.dumps(options)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        return {"seconds": float("nan"), "added_kib": 0,
                "outcome": f"exit {done.returncode}: {done.stderr.strip()[-200:]}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def size_text(n: int) -> str:
    for unit, scale in (("GiB", GIB), ("MiB", MIB), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n} B"


def main(selected: list[str]) -> None:
    print("| file | on disk | content | seconds | memory added | process peak | outcome |")
    print("|---|---:|---:|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for name, build, options in cases(folder):
            if selected and not any(word in name for word in selected):
                continue
            path, content = build()
            got = measure(path, options)
            outcome = got["outcome"].replace(str(path), path.name).replace("|", "/")
            print(f"| {name} | {size_text(path.stat().st_size)} | {size_text(content)} | "
                  f"{got['seconds']:.2f} | {size_text(got['added_kib'] * 1024)} | "
                  f"{size_text(got.get('peak_kib', 0) * 1024)} | "
                  f"{outcome[:150]} |", flush=True)
            path.unlink()


if __name__ == "__main__":
    main(sys.argv[1:])
