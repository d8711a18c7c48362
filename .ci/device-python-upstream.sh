#!/usr/bin/env bash
# Side-by-side Python benchmark on the GPU device machine: build tvmffi's
# package (with the CUDA kernels) and upstream tvm_ffi's package, then run
# benchmarks/bench_python.py with both (--upstream), upstream in a worker
# process of its own, batches alternating. No pytest here (.ci/device-python.sh
# runs the tests); this script is sized to finish in well under 300 s.
#
# Upstream's package is never part of the repository: .ci/prepare-carry.sh
# (with TVMFFI_UPSTREAM_PEER=<dir>, see there) puts into the git-ignored
# .carry/upstream/ its Python sources and headers, its prebuilt runtime
# (lib/libtvm_ffi.so, lib/libtvm_ffi_testing.so, built on Debian 12: they
# need only glibc 2.34 and GLIBCXX 3.4.29, older than the device's) and
# core.cpp, the Cython output of its core.pyx (Cython-generated C++ compiles
# for any CPython 3.x it supports, so the device's Cython version does not
# matter). Here only core.cpp is compiled, against the device's Python.
# TVMFFI_UPSTREAM_CYTHONIZE=1 cythonizes core.pyx again with the device's
# Cython instead.
#
# Env: OUT                   folder for logs, written as the steps finish
#                            (default build/device-python-upstream-logs):
#                            build_ours.log, build_upstream.log,
#                            bench_python_upstream.log, bench_python_upstream.json
#      TVMFFI_PYTHON          interpreter (default: python3 on PATH)
#      TVMFFI_JOBS            build parallelism (default 16)
#      TVMFFI_CUDA_ARCH       CMAKE_CUDA_ARCHITECTURES (default 90)
#      TVMFFI_NO_CUDA=1       build without the CUDA kernels (dry runs on a machine without nvcc)
#      TVMFFI_BENCH_ARGS      extra arguments for bench_python.py (e.g. "--repeat 50")
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=build/device-python
UPBUILD=$ROOT/build/upstream-python
UPCARRY=$ROOT/.carry/upstream
JOBS=${TVMFFI_JOBS:-16}
ARCH=${TVMFFI_CUDA_ARCH:-90}
PY=${TVMFFI_PYTHON:-$(command -v python3)}
LOGS=${OUT:-$ROOT/build/device-python-upstream-logs}
START=$SECONDS

BANNER_T0=$START
# shellcheck source=.ci/lib.sh
source .ci/lib.sh
die() { printf '[device-python-upstream] ERROR: %s\n' "$*" >&2; exit 1; }
mkdir -p "$LOGS"

[[ -f .carry/nanobind/cmake/nanobind-config.cmake ]] ||
  die ".carry/nanobind missing: run .ci/prepare-carry.sh here and pass carry: [\".carry\"]"
[[ -f .carry/dlpack/include/dlpack/dlpack.h ]] || die ".carry/dlpack missing (prepare-carry.sh)"
for f in core.cpp tvm_ffi/__init__.py tvm_ffi/lib/libtvm_ffi.so tvm_ffi/lib/libtvm_ffi_testing.so \
         tvm_ffi/include/tvm/ffi/c_api.h tvm_ffi/include/dlpack/dlpack.h \
         tvm_ffi/cython/tvm_ffi_python_helpers.h; do
  [[ -f $UPCARRY/$f ]] ||
    die ".carry/upstream/$f missing: TVMFFI_UPSTREAM_PEER=<folder with upstream-src> bash .ci/prepare-carry.sh"
done
CUDA_ARGS=(-DTVMFFI_BUILD_CUDA_KERNELS=OFF)
TARGETS=(tvmffi_python tvmffi_cpu_kernels)
BENCH_CUDA=()
if [[ ${TVMFFI_NO_CUDA:-0} != 1 ]]; then
  NVCC=
  if [[ -x /usr/local/cuda/bin/nvcc ]]; then NVCC=/usr/local/cuda/bin/nvcc
  elif command -v nvcc >/dev/null 2>&1; then NVCC=$(command -v nvcc); fi
  [[ -n $NVCC ]] || die "nvcc not found (TVMFFI_NO_CUDA=1 builds without the CUDA kernels)"
  CUDA_ARGS=(-DTVMFFI_BUILD_CUDA_KERNELS=ON -DCMAKE_CUDA_COMPILER="$NVCC"
             -DCMAKE_CUDA_ARCHITECTURES="$ARCH")
  TARGETS+=(tvmffi_kernels)
  BENCH_CUDA=(--cuda-kernels "$BUILD/kernels/libtvmffi_kernels.so")
fi

banner "python"
"$PY" - <<'PY'
import sys
print(sys.version)
for name in ("numpy", "torch", "cupy", "Cython"):
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
read -r PYINC EXT_SUFFIX < <("$PY" -c \
  'import sysconfig as s; print(s.get_paths()["include"], s.get_config_var("EXT_SUFFIX"))')
[[ -f $PYINC/Python.h ]] || echo "[device-python-upstream] warning: no Python.h in $PYINC (upstream's core will not compile)"
CXX_BIN=${CXX:-$(command -v c++ || command -v g++)}
echo "python headers: $PYINC   extension suffix: $EXT_SUFFIX   c++: $CXX_BIN"

# ---- upstream's package, in the background ------------------------------
# A copy of the carried package; core<EXT_SUFFIX> is compiled into it (one
# translation unit, the longest single job: it runs beside our build).
build_upstream() {
  set -e
  rm -rf "$UPBUILD"
  mkdir -p "$UPBUILD"
  cp -R "$UPCARRY/tvm_ffi" "$UPBUILD/"
  local core=$UPCARRY/core.cpp
  if [[ ${TVMFFI_UPSTREAM_CYTHONIZE:-0} == 1 ]]; then
    core=$UPBUILD/core.cpp
    (cd "$UPBUILD" && "$PY" -m cython --cplus tvm_ffi/cython/core.pyx -o "$core" \
       --module-name tvm_ffi.core)
  fi
  head -n 1 "$core"
  local t0=$SECONDS
  # Upstream's CMake builds it Release (-O3 -DNDEBUG), C++17, against
  # libtvm_ffi and libtvm_ffi_testing, with the run path $ORIGIN/lib.
  "$CXX_BIN" -std=c++17 -O3 -DNDEBUG -fPIC -shared -o "$UPBUILD/tvm_ffi/core$EXT_SUFFIX" "$core" \
    -I"$PYINC" -I"$UPBUILD/tvm_ffi/include" -I"$UPBUILD/tvm_ffi/cython" \
    -L"$UPBUILD/tvm_ffi/lib" -ltvm_ffi -ltvm_ffi_testing '-Wl,-rpath,$ORIGIN/lib'
  echo "core$EXT_SUFFIX compiled in $((SECONDS - t0)) s"
}
banner "upstream tvm_ffi: compile core$EXT_SUFFIX (background, log: build_upstream.log)"
build_upstream >"$LOGS/build_upstream.log" 2>&1 &
UP_PID=$!

# ---- ours -----------------------------------------------------------------
banner "configure + build $BUILD (-j$JOBS: ${TARGETS[*]}; log: build_ours.log)"
brc=0
{
  cmake -S "$ROOT" -B "$BUILD" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release \
    -DTVMFFI_BUILD_TESTS=OFF \
    "${CUDA_ARGS[@]}" \
    -DTVMFFI_BUILD_PYTHON=ON \
    -DPython_EXECUTABLE="$PY" \
    -DTVMFFI_NANOBIND_DIR="$ROOT/.carry/nanobind" \
    -DTVMFFI_TORCH_EXCHANGE="${TVMFFI_TORCH_EXCHANGE:-OFF}" \
    -DCMAKE_PREFIX_PATH="$ROOT/.carry/dlpack" &&
  cmake --build "$BUILD" -j "$JOBS" --target "${TARGETS[@]}"
} >"$LOGS/build_ours.log" 2>&1 || brc=$?
grep -E '^-- tvmffi|error:|^FAILED' "$LOGS/build_ours.log" || true
if [[ $brc -ne 0 ]]; then
  tail -n 40 "$LOGS/build_ours.log"
  die "our build failed (rc=$brc)"
fi
echo "[device-python-upstream] ours built at t=$((SECONDS - START))s"

banner "wait for upstream's core"
up_rc=0
wait "$UP_PID" || up_rc=$?
cat "$LOGS/build_upstream.log"
UPSTREAM_ARGS=()
if [[ $up_rc -eq 0 ]] && PYTHONPATH="$UPBUILD" "$PY" -c \
     'import tvm_ffi; print("import tvm_ffi:", tvm_ffi.__file__)'; then
  UPSTREAM_ARGS=(--upstream "$UPBUILD")
else
  echo "[device-python-upstream] upstream's package did not build or import (rc=$up_rc):" \
       "benchmarking tvmffi alone"
fi

banner "benchmarks/bench_python.py ${UPSTREAM_ARGS[*]}"
rc=0
# shellcheck disable=SC2086  # TVMFFI_BENCH_ARGS is a list of words
PYTHONUNBUFFERED=1 PYTHONPATH="$ROOT/$BUILD/python" TVMFFI_BENCH_JSON="$LOGS/bench_python_upstream.json" \
  TVM_FFI_CACHE_DIR=/tmp/tvm-ffi-cache \
  "$PY" benchmarks/bench_python.py \
  --cpu-kernels "$BUILD/kernels/libtvmffi_cpu_kernels.so" "${BENCH_CUDA[@]}" \
  "${UPSTREAM_ARGS[@]}" ${TVMFFI_BENCH_ARGS:-} 2>&1 | tee "$LOGS/bench_python_upstream.log" || rc=$?
banner "done"
[[ $rc -eq 0 && ${#UPSTREAM_ARGS[@]} -gt 0 ]] || { echo "[device-python-upstream] FAILED (bench rc=$rc)"; exit 1; }
echo "[device-python-upstream] all steps passed"
