#!/usr/bin/env bash
# The wheel flow of .ci/wheel.sh on the GPU machine, the GPU tests included:
# build the CUDA kernel library (for python/tests' GPU cases), then run
# .ci/wheel.sh with the machine's python3 (torch with CUDA, cupy, numpy 2.x).
# That machine has no Debian packages and no registry: DLPack, nlohmann-json,
# nanobind's sources, scikit-build-core and pytest come from .carry/ (filled
# here by .ci/prepare-carry.sh; pass carry: [".carry"]).
#
# Env: TVMFFI_JOBS (default 16), TVMFFI_CUDA_ARCH (default 90)
set -euo pipefail

cd "$(dirname "$0")/.."
# shellcheck source=.ci/lib.sh
source .ci/lib.sh
ROOT=$PWD
PREFIX=/tmp/carry-prefix
JOBS=${TVMFFI_JOBS:-16}
ARCH=${TVMFFI_CUDA_ARCH:-90}
PY=$(command -v python3)
die() { printf '[device-wheel] ERROR: %s\n' "$*" >&2; exit 1; }

for f in .carry/nlohmann-json3-dev.deb .carry/dlpack/include/dlpack/dlpack.h \
         .carry/nanobind/cmake/nanobind-config.cmake .carry/pylib/scikit_build_core; do
  [[ -e $f ]] || die "$f missing: run .ci/prepare-carry.sh here and pass carry: [\".carry\"]"
done
rm -rf "$PREFIX" && mkdir -p "$PREFIX"
unpack_deb .carry/nlohmann-json3-dev.deb "$PREFIX"
cp -R .carry/dlpack/. "$PREFIX/usr/"
# Only the build backend from .carry/pylib: the machine's own pytest (and its
# plugins) must not meet the carried one.
buildlib=/tmp/carry-buildlib
rm -rf "$buildlib" && mkdir -p "$buildlib"
ln -s "$ROOT"/.carry/pylib/scikit_build_core* "$ROOT"/.carry/pylib/pathspec* "$buildlib/"
export PYTHONPATH="$buildlib${PYTHONPATH:+:$PYTHONPATH}"
nvidia-smi -L || true
"$PY" -c 'import sys, torch; print(sys.version.split()[0], "torch", torch.__version__, "cuda", torch.cuda.is_available())'

cmake -S . -B build/device-wheel-kernels -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DTVMFFI_BUILD_CUDA_KERNELS=ON -DCMAKE_CUDA_ARCHITECTURES="$ARCH" \
  -DTVMFFI_BUILD_TOOLS=OFF -DCMAKE_PREFIX_PATH="$PREFIX/usr" >/dev/null
cmake --build build/device-wheel-kernels -j "$JOBS" --target tvmffi_kernels >/dev/null

TVMFFI_PYTHON=$PY TVMFFI_JOBS=$JOBS TVMFFI_DOCS_SITE=0 \
TVMFFI_CUDA_KERNELS="$ROOT/build/device-wheel-kernels/kernels/libtvmffi_kernels.so" \
TVMFFI_PIP_WHEEL_ARGS="-C cmake.define.TVMFFI_NANOBIND_DIR=$ROOT/.carry/nanobind -C cmake.define.CMAKE_PREFIX_PATH=$PREFIX/usr -C cmake.define.CMAKE_CUDA_ARCHITECTURES=$ARCH" \
  bash .ci/wheel.sh
