#!/usr/bin/env bash
# Build the Python package with the CUDA kernels on the GPU device machine and
# run its tests (python/tests, the CUDA cases included) and
# benchmarks/bench_python.py. That machine has Python, torch (CUDA), cupy,
# numpy, nvcc, cmake and ninja but no nanobind and no package registry:
# nanobind's sources (and pytest, where the machine's Python has none) come
# from .carry/, filled here by .ci/prepare-carry.sh (carry: [".carry"]).
#
# tvmffi._torch_exchange is not built here: torch >= 2.10 has its own exchange
# API (an older torch still works, through DLPack capsules).
#
# Env: OUT (optional)        folder for logs: pytest_python.log, bench_python.log
#      TVMFFI_PYTHON          interpreter (default: python3 on PATH)
#      TVMFFI_JOBS            build parallelism (default 16)
#      TVMFFI_CUDA_ARCH       CMAKE_CUDA_ARCHITECTURES (default 90)
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=build/device-python
JOBS=${TVMFFI_JOBS:-16}
ARCH=${TVMFFI_CUDA_ARCH:-90}
PY=${TVMFFI_PYTHON:-$(command -v python3)}
LOGDIR=${OUT:-}

# shellcheck source=.ci/lib.sh
source .ci/lib.sh
die() { printf '[device-python] ERROR: %s\n' "$*" >&2; exit 1; }

[[ -f .carry/nanobind/cmake/nanobind-config.cmake ]] ||
  die ".carry/nanobind missing: run .ci/prepare-carry.sh here and pass carry: [\".carry\"]"
[[ -f .carry/dlpack/include/dlpack/dlpack.h ]] || die ".carry/dlpack missing (prepare-carry.sh)"
NVCC=
if [[ -x /usr/local/cuda/bin/nvcc ]]; then NVCC=/usr/local/cuda/bin/nvcc
elif command -v nvcc >/dev/null 2>&1; then NVCC=$(command -v nvcc); fi
[[ -n $NVCC ]] || die "nvcc not found"

banner "python"
"$PY" - <<'PY'
import sys
print(sys.version)
for name in ("numpy", "torch", "cupy", "pytest"):
    try:
        mod = __import__(name)
        extra = ""
        if name == "torch":
            extra = f" cuda={mod.cuda.is_available()} exchange_api=" + str(
                hasattr(mod.Tensor, "__dlpack_c_exchange_api__"))
        print(f"{name} {getattr(mod, '__version__', '?')}{extra}")
    except Exception as err:  # noqa: BLE001
        print(f"{name}: not importable ({err})")
PY
PYPATH_EXTRA=
if ! "$PY" -c 'import pytest' >/dev/null 2>&1; then
  echo "[device-python] using Debian's pytest from .carry/pylib"
  PYPATH_EXTRA=:$ROOT/.carry/pylib
fi

banner "configure $BUILD"
cmake -S "$ROOT" -B "$BUILD" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release \
  -DTVMFFI_BUILD_TESTS=OFF \
  -DTVMFFI_BUILD_CUDA_KERNELS=ON \
  -DCMAKE_CUDA_COMPILER="$NVCC" \
  -DCMAKE_CUDA_ARCHITECTURES="$ARCH" \
  -DTVMFFI_BUILD_PYTHON=ON \
  -DPython_EXECUTABLE="$PY" \
  -DTVMFFI_NANOBIND_DIR="$ROOT/.carry/nanobind" \
  -DTVMFFI_TORCH_EXCHANGE=OFF \
  -DCMAKE_PREFIX_PATH="$ROOT/.carry/dlpack"

banner "build $BUILD (-j$JOBS)"
cmake --build "$BUILD" -j "$JOBS" --target tvmffi_python tvmffi_cpu_kernels tvmffi_kernels

failures=()
log() { if [[ -n $LOGDIR ]]; then mkdir -p "$LOGDIR"; echo "$LOGDIR/$1"; else echo /dev/null; fi; }

banner "pytest python/tests"
rc=0
PYTHONPATH="$ROOT/$BUILD/python$PYPATH_EXTRA" "$PY" -m pytest python/tests -rs -p no:cacheprovider \
  2>&1 | tee "$(log pytest_python.log)" || rc=$?
[[ $rc -eq 0 ]] || failures+=("pytest (rc=$rc)")

banner "benchmarks/bench_python.py"
rc=0
PYTHONPATH="$ROOT/$BUILD/python" "$PY" benchmarks/bench_python.py \
  --cpu-kernels "$BUILD/kernels/libtvmffi_cpu_kernels.so" \
  --cuda-kernels "$BUILD/kernels/libtvmffi_kernels.so" 2>&1 | tee "$(log bench_python.log)" || rc=$?
[[ $rc -eq 0 ]] || failures+=("bench_python.py (rc=$rc)")

banner "summary"
if [[ ${#failures[@]} -gt 0 ]]; then
  printf '[device-python] FAILED: %s\n' "${failures[@]}"
  exit 1
fi
echo "[device-python] all steps passed"
