#!/usr/bin/env bash
# Build and run the tvmffi demo (target tvmffi_demo) from build/release.
# If the CLI (build/release/tvmffi) and the CPU kernel library exist, first
# show what the library exports with `tvmffi inspect`.
# Env: TVMFFI_JOBS  build parallelism (default: number of CPUs)
set -euo pipefail

cd "$(dirname "$0")/.."

BUILD=build/release
JOBS=${TVMFFI_JOBS:-$(nproc 2>/dev/null || echo 2)}
KERNELS_SO=$BUILD/kernels/libtvmffi_cpu_kernels.so

bash .ci/setup-debian.sh

# Same configuration as the release build of .ci/test.sh, so the two share
# build/release without reconfiguring back and forth.
NVCC=
if [[ -x /usr/local/cuda/bin/nvcc ]]; then
  NVCC=/usr/local/cuda/bin/nvcc
elif command -v nvcc >/dev/null 2>&1; then
  NVCC=$(command -v nvcc)
fi
if [[ -n $NVCC ]]; then
  CUDA_ARGS=(-DTVMFFI_BUILD_CUDA_KERNELS=ON "-DCMAKE_CUDA_COMPILER=$NVCC")
else
  CUDA_ARGS=(-DTVMFFI_BUILD_CUDA_KERNELS=OFF)
fi

cmake -S . -B "$BUILD" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release \
  -DTVMFFI_BUILD_TESTS=ON \
  -DTVMFFI_BUILD_BENCHMARKS=ON \
  "${CUDA_ARGS[@]}" >/dev/null

# The demo itself, plus the CLI and the CPU kernel library where the build
# defines those targets.
targets=(tvmffi_demo)
known=$(cmake --build "$BUILD" --target help 2>/dev/null || true)
for t in tvmffi_cli tvmffi_cpu_kernels; do
  grep -q "^$t:" <<<"$known" && targets+=("$t")
done
cmake --build "$BUILD" -j "$JOBS" --target "${targets[@]}"

if [[ -x $BUILD/tvmffi && -f $KERNELS_SO ]]; then
  echo "\$ $BUILD/tvmffi inspect $KERNELS_SO"
  "$BUILD/tvmffi" inspect "$KERNELS_SO"
  echo
fi

echo "\$ $BUILD/tvmffi_demo"
exec "$BUILD/tvmffi_demo"
