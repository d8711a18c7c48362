#!/usr/bin/env bash
# Build and run the GPU tests and benchmarks on the GPU device machine
# (H100/H200, nvcc 13, cmake, ninja; no internet, no apt).
#
# Dependencies come from the git-ignored folder .carry/, filled here by
# .ci/prepare-carry.sh and sent along with the working tree (carry: [".carry"]).
#
# Env: OUT (optional)      folder for logs: ctest.log, bench_<name>.log
#      TVMFFI_JOBS         build parallelism (default 16)
#      TVMFFI_CUDA_ARCH    CMAKE_CUDA_ARCHITECTURES (default 90)
#      TVMFFI_BENCH_TIMEOUT seconds per benchmark executable (default 180)
#      TVMFFI_DEVICE_TARGETS build only these targets (space-separated; default all)
#      TVMFFI_DEVICE_TESTS  ctest -R regex (default: every test)
#      TVMFFI_DEVICE_BENCHES run only these benchmarks (space-separated names; default all)
# The three narrow a run to what fits a short device budget.
#
# Keeps going after failing tests so that the benchmarks still run; exits
# non-zero at the end if any step failed.
set -euo pipefail

cd "$(dirname "$0")/.."
# shellcheck source=.ci/lib.sh
source .ci/lib.sh
ROOT=$PWD
BUILD=build/device
PREFIX=/tmp/carry-prefix
JOBS=${TVMFFI_JOBS:-16}
ARCH=${TVMFFI_CUDA_ARCH:-90}
BENCH_TIMEOUT=${TVMFFI_BENCH_TIMEOUT:-180}
LOGDIR=${OUT:-}

die() { printf '[device] ERROR: %s\n' "$*" >&2; exit 1; }

failures=()

# ------------------------------------------------------------------ GPU ---
banner "GPU"
nvidia-smi -L || echo "[device] warning: nvidia-smi -L failed"

NVCC=
if [[ -x /usr/local/cuda/bin/nvcc ]]; then
  NVCC=/usr/local/cuda/bin/nvcc
elif command -v nvcc >/dev/null 2>&1; then
  NVCC=$(command -v nvcc)
fi
[[ -n $NVCC ]] || die "nvcc not found"
"$NVCC" --version | tail -n 2
echo "cmake: $(cmake --version | head -n 1)   ninja: $(ninja --version)"

# ---------------------------------------------------------------- carry ---
banner "unpack .carry -> $PREFIX"
[[ -d .carry ]] || die ".carry/ missing: run .ci/prepare-carry.sh here and pass carry: [\".carry\"]"
debs=(.carry/libcatch2-dev*.deb)
deb=${debs[0]}
[[ -f $deb ]] || die "no libcatch2-dev .deb in .carry/"
json_deb=.carry/nlohmann-json3-dev.deb
[[ -f $json_deb ]] || die "no nlohmann-json3-dev .deb in .carry/ (re-run .ci/prepare-carry.sh)"
[[ -f .carry/dlpack/include/dlpack/dlpack.h ]] || die "no DLPack header in .carry/dlpack/"

rm -rf "$PREFIX"
mkdir -p "$PREFIX"
unpack_deb "$deb" "$PREFIX"
unpack_deb "$json_deb" "$PREFIX"
# DLPack header + its small CMake config go into the same prefix.
cp -R .carry/dlpack/. "$PREFIX/usr/"
[[ -f $PREFIX/usr/lib/cmake/Catch2/Catch2Config.cmake ]] || die "Catch2 CMake config not in $PREFIX"
echo "[device] CMake packages in $PREFIX/usr/lib/cmake:" "$PREFIX"/usr/lib/cmake/*/

# ---------------------------------------------------------------- build ---
banner "configure $BUILD"
cmake -S "$ROOT" -B "$BUILD" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release \
  -DTVMFFI_BUILD_TESTS=ON \
  -DTVMFFI_BUILD_BENCHMARKS=ON \
  -DTVMFFI_BUILD_CUDA_KERNELS=ON \
  -DCMAKE_CUDA_COMPILER="$NVCC" \
  -DCMAKE_CUDA_ARCHITECTURES="$ARCH" \
  -DCMAKE_PREFIX_PATH="$PREFIX/usr"

banner "build $BUILD (-j$JOBS)"
targets=()
for t in ${TVMFFI_DEVICE_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$BUILD" -j "$JOBS" "${targets[@]}"

# ----------------------------------------------------------------- tests ---
banner "ctest $BUILD"
ctest_log=/dev/null
if [[ -n $LOGDIR ]]; then mkdir -p "$LOGDIR"; ctest_log=$LOGDIR/ctest.log; fi
junit="$PWD/$BUILD/ctest-junit.xml"
rm -f "$junit"
rc=0
ctest_filter=()
[[ -n ${TVMFFI_DEVICE_TESTS:-} ]] && ctest_filter=(-R "$TVMFFI_DEVICE_TESTS")
ctest --test-dir "$BUILD" --output-on-failure --output-junit "$junit" "${ctest_filter[@]}" 2>&1 |
  tee "$ctest_log" || rc=$?
[[ $rc -eq 0 ]] || failures+=("ctest (rc=$rc)")

# ------------------------------------------------------------ benchmarks ---
shopt -s nullglob
for exe in "$BUILD"/benchmarks/bench_*; do
  [[ -f $exe && -x $exe ]] || continue
  name=$(basename "$exe")
  if [[ -n ${TVMFFI_DEVICE_BENCHES:-} && " $TVMFFI_DEVICE_BENCHES " != *" $name "* ]]; then continue; fi
  banner "$name"
  log=/dev/null
  [[ -n $LOGDIR ]] && log=$LOGDIR/$name.log
  rc=0
  timeout "$BENCH_TIMEOUT" "$exe" 2>&1 | tee "$log" || rc=$?
  [[ $rc -eq 0 ]] || failures+=("$name (rc=$rc)")
done
shopt -u nullglob

# --------------------------------------------------------------- summary ---
banner "summary"
counts=$(junit_counts "$junit")
if [[ -n $counts ]]; then
  read -r passed failed skipped <<<"$counts"
  echo "tests: $passed passed, $failed failed, $skipped skipped"
else
  echo "tests: no JUnit results"
fi
if [[ ${#failures[@]} -gt 0 ]]; then
  printf '[device] FAILED: %s\n' "${failures[@]}"
  exit 1
fi
echo "[device] all steps passed"
