#!/usr/bin/env bash
# torch.compile, CUDA graphs and JAX over our CUDA kernels (issue #42), on the
# GPU device machine (torch 2.11 with CUDA, JAX, nvcc, cmake, ninja; no
# registry: nanobind and dlpack come from .carry/, filled by
# .ci/prepare-carry.sh; pass carry: [".carry"]). Builds the Python package and
# the CUDA kernels, runs python/tests/test_torch_ops.py and test_jax_shape.py
# (CPU kernels), then benchmarks/bench_torch_compile.py: the model
# norm -> rmsnorm (ours) -> matmul -> softmax (ours) at three sizes (small:
# launch-bound, medium, large), each in torch's ops and with ours, eager and
# under torch.compile(fullgraph=True, mode="reduce-overhead"), with the ratios;
# the eager cost per call through a custom op; and a jitted JAX ffi_call
# without a result spec.
#
# Env: OUT (optional)   folder for logs: pytest_torch.log, bench_torch_compile.log
#      TVMFFI_PYTHON     interpreter (default: python3 on PATH)
#      TVMFFI_JOBS       build parallelism (default 16)
#      TVMFFI_CUDA_ARCH  CMAKE_CUDA_ARCHITECTURES (default 90)
#      TVMFFI_QUICK=1    fewer iterations
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=build/device-torch
JOBS=${TVMFFI_JOBS:-16}
ARCH=${TVMFFI_CUDA_ARCH:-90}
PY=${TVMFFI_PYTHON:-$(command -v python3)}
LOGDIR=${OUT:-}

banner() { printf '\n==================== %s ====================\n' "$*"; }
die() { printf '[device-torch] ERROR: %s\n' "$*" >&2; exit 1; }
log() { if [[ -n $LOGDIR ]]; then mkdir -p "$LOGDIR"; echo "$LOGDIR/$1"; else echo /dev/null; fi; }

[[ -f .carry/nanobind/cmake/nanobind-config.cmake ]] ||
  die ".carry/nanobind missing: run .ci/prepare-carry.sh here and pass carry: [\".carry\"]"
NVCC=
if [[ -x /usr/local/cuda/bin/nvcc ]]; then NVCC=/usr/local/cuda/bin/nvcc
elif command -v nvcc >/dev/null 2>&1; then NVCC=$(command -v nvcc); fi
[[ -n $NVCC ]] || die "nvcc not found"
PYPATH_EXTRA=
if ! "$PY" -c 'import pytest' >/dev/null 2>&1; then PYPATH_EXTRA=:$ROOT/.carry/pylib; fi

banner "build $BUILD (-j$JOBS)"
start=$SECONDS
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DTVMFFI_BUILD_TESTS=OFF -DTVMFFI_BUILD_CUDA_KERNELS=ON \
  -DCMAKE_CUDA_COMPILER="$NVCC" -DCMAKE_CUDA_ARCHITECTURES="$ARCH" \
  -DTVMFFI_BUILD_PYTHON=ON -DPython_EXECUTABLE="$PY" \
  -DTVMFFI_NANOBIND_DIR="$ROOT/.carry/nanobind" -DTVMFFI_TORCH_EXCHANGE=OFF \
  -DCMAKE_PREFIX_PATH="$ROOT/.carry/dlpack" >/dev/null
cmake --build "$BUILD" -j "$JOBS" --target tvmffi_python tvmffi_cpu_kernels tvmffi_kernels
echo "[device-torch] build took $((SECONDS - start)) s"

failures=()
banner "pytest test_torch_ops.py test_jax_shape.py"
rc=0
PYTHONPATH="$ROOT/$BUILD/python$PYPATH_EXTRA" \
  TVMFFI_CPU_KERNELS="$ROOT/$BUILD/kernels/libtvmffi_cpu_kernels.so" \
  "$PY" -m pytest -q -rs -p no:cacheprovider python/tests/test_torch_ops.py \
  python/tests/test_jax_shape.py 2>&1 | tee "$(log pytest_torch.log)" || rc=$?
[[ $rc -eq 0 ]] || failures+=("pytest (rc=$rc)")

banner "benchmarks/bench_torch_compile.py"
rc=0
PYTHONPATH="$ROOT/$BUILD/python" "$PY" benchmarks/bench_torch_compile.py \
  --cuda-kernels "$BUILD/kernels/libtvmffi_kernels.so" ${TVMFFI_QUICK:+--quick} 2>&1 |
  tee "$(log bench_torch_compile.log)" || rc=$?
[[ $rc -eq 0 ]] || failures+=("bench_torch_compile.py (rc=$rc)")

banner "summary"
if [[ ${#failures[@]} -gt 0 ]]; then
  printf '[device-torch] FAILED: %s\n' "${failures[@]}"
  exit 1
fi
echo "[device-torch] all steps passed"
