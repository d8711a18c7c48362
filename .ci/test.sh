#!/usr/bin/env bash
# tvmffi CI: set up the machine, then lint, build and test:
#   lint           .ci/lint.sh: clang-format, ruff, shellcheck, the layering
#                  check; fails on any diff (the first, fast phase)
#   build/release  Release, tests + benchmarks (+ CUDA kernels if nvcc exists),
#                  then .ci/tidy.sh: clang-tidy over its product sources
#   build/aarch64  Release cross build for Linux aarch64 (tests under qemu-aarch64)
#   wheel          .ci/wheel.sh: the wheel built from the root, installed into a
#                  fresh venv elsewhere with its build tree deleted; kernel
#                  libraries built against it; the docs' examples and the docs
#                  site (the `docs` target, Sphinx -W); pytest python/tests against it
#   upstream       .ci/upstream.sh: the pinned apache-tvm-ffi release
#                  (tests/upstream/VERSION) from PyPI; its C++ and Python suites
#                  against the wheel phase's venv, with expected-failure lists,
#                  and the interop matrix with its real wheel (about 4-9 min)
#   torch          .ci/torch.sh: the wheel phase's wheel in a cached venv with torch
#                  2.11.0 and JAX (PyPI): torch custom ops, torch.compile, opcheck,
#                  JAX ffi_call with result shapes from the library (issue #42)
#   clients        .ci/clients.sh: FlashInfer's JIT modules (nvcc; SKIPs without)
#                  and CuTe DSL's TVM-FFI export built against the wheel phase's
#                  venv; the stand-in apache-tvm-ffi distribution
#   build/asan     Debug with ASan/UBSan (TVMFFI_SANITIZE=ON), tests only
#   build/oom      Debug with ASan/UBSan and TVMFFI_FAULT_INJECTION=ON: test_oom only
#   build/tsan     ThreadSanitizer (TVMFFI_SANITIZE_THREAD=ON), the stress test
#                  and the thread-relevant suites only
#   build/fuzz     clang, libFuzzer + ASan/UBSan: each fuzz target for a bounded time;
#                  then .ci/fuzz-python.sh: atheris over the Python call path (build/asan)
# The asan phase also builds the Python package in its build tree and runs
# pytest there, under the sanitizers.
# Ends with exactly one line "tests: N passed, N failed, N skipped" (summed over
# every ctest run, read from ctest's JUnit output, and pytest) and exits
# non-zero if any step failed.
#
# Env: TVMFFI_JOBS  build parallelism (default: number of CPUs)
#      TVMFFI_FUZZ_SECONDS  time per fuzz target (default 30)
#      TVMFFI_PY_FUZZ_SECONDS  time of the Python fuzz target (default 20)
set -euo pipefail

cd "$(dirname "$0")/.."
# shellcheck source=.ci/lib.sh
source .ci/lib.sh

JOBS=${TVMFFI_JOBS:-$(nproc 2>/dev/null || echo 2)}

total_passed=0
total_failed=0
total_skipped=0
failures=()

summary_and_exit() {
  echo
  if [[ ${#failures[@]} -gt 0 ]]; then
    printf 'FAILED: %s\n' "${failures[@]}"
  fi
  echo "tests: $total_passed passed, $total_failed failed, $total_skipped skipped"
  if [[ ${#failures[@]} -gt 0 || $total_failed -gt 0 ]]; then exit 1; fi
  exit 0
}

# ---------------------------------------------------------------- setup ---
banner "setup"
if ! bash .ci/setup-debian.sh; then
  failures+=("setup-debian.sh")
  summary_and_exit
fi

# Every build phase (and the wheel's, and the clients') compiles through ccache
# when it is there (setup-debian.sh installs it): a second run on the same
# machine recompiles only what changed. CMake reads these as the launchers'
# defaults; CCACHE_BASEDIR makes clones in other folders share the cache.
# TVMFFI_CCACHE=0 turns it off (a cold run's true time).
if [[ ${TVMFFI_CCACHE:-1} != 0 ]] && command -v ccache >/dev/null 2>&1; then
  export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache
  export CMAKE_CUDA_COMPILER_LAUNCHER=ccache CCACHE_BASEDIR=$PWD
fi

# ----------------------------------------------------------------- lint ---
run_counted() {  # run_counted NAME COMMAND...: a script ending "NAME: N passed, N failed[, N skipped]"
  local name=$1 log rc=0 line
  shift
  banner "$name"
  log=$(mktemp)
  "$@" 2>&1 | tee "$log" || rc=$?
  line=$(grep -E "^$name: [0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$" "$log" | tail -n 1 || true)
  rm -f "$log"
  if [[ $line =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed(,\ ([0-9]+)\ skipped)?$ ]]; then
    total_passed=$((total_passed + BASH_REMATCH[1]))
    total_failed=$((total_failed + BASH_REMATCH[2]))
    total_skipped=$((total_skipped + ${BASH_REMATCH[4]:-0}))
  else
    failures+=("$name: no summary line")
  fi
  [[ $rc -eq 0 ]] || failures+=("$name (rc=$rc)")
}
run_counted lint bash .ci/lint.sh

NVCC=
if [[ -x /usr/local/cuda/bin/nvcc ]]; then
  NVCC=/usr/local/cuda/bin/nvcc
elif command -v nvcc >/dev/null 2>&1; then
  NVCC=$(command -v nvcc)
fi
if [[ -n $NVCC ]]; then
  echo "nvcc: $NVCC -> CUDA kernels ON (release build)"
  CUDA_ARGS=(-DTVMFFI_BUILD_CUDA_KERNELS=ON "-DCMAKE_CUDA_COMPILER=$NVCC")
else
  echo "nvcc: not found -> CUDA kernels OFF"
  CUDA_ARGS=(-DTVMFFI_BUILD_CUDA_KERNELS=OFF)
fi

# run_phase NAME BUILD_DIR CMAKE_ARGS...
# Configure, build and ctest one build tree; adds to the totals.
run_phase() {
  local name=$1 dir=$2 rc counts passed failed skipped junit
  shift 2

  banner "$name: configure $dir"
  if ! cmake -S . -B "$dir" -G Ninja "$@"; then
    failures+=("$name: configure"); return
  fi

  banner "$name: build $dir (-j$JOBS)"
  if ! cmake --build "$dir" -j "$JOBS"; then
    failures+=("$name: build"); return
  fi

  banner "$name: ctest $dir"
  junit="$PWD/$dir/ctest-junit.xml"
  rm -f "$junit"
  rc=0
  ctest --test-dir "$dir" --output-on-failure --output-junit "$junit" || rc=$?
  counts=$(junit_counts "$junit")
  if [[ -n $counts ]]; then
    read -r passed failed skipped <<<"$counts"
    total_passed=$((total_passed + passed))
    total_failed=$((total_failed + failed))
    total_skipped=$((total_skipped + skipped))
    echo "$name: $passed passed, $failed failed, $skipped skipped"
  else
    echo "$name: no JUnit results ($junit)"
  fi
  [[ $rc -eq 0 ]] || failures+=("$name: ctest (rc=$rc)")
}

# run_pytest NAME BUILD_DIR [VAR=VALUE...]
# The Python package's tests, with Debian's interpreter, against the package
# built in BUILD_DIR/python (VAR=VALUE: extra environment); adds pytest's
# counts to the totals. pytest's exit 5 ("no tests collected") is a failure
# like any other non-zero exit.
run_pytest() {
  local name=$1 dir=$2 rc=0 log passed=0 failed=0 skipped=0
  shift 2
  banner "$name: pytest python/tests"
  if [[ ! -f $dir/python/tvmffi/__init__.py ]]; then
    failures+=("$name: pytest (no package in $dir/python)"); return
  fi
  log=$(mktemp)
  env PYTHONPATH="$PWD/$dir/python" "$@" /usr/bin/python3 -m pytest python/tests -rs \
    -p no:cacheprovider 2>&1 | tee "$log" || rc=$?
  read -r passed failed skipped <<<"$(pytest_counts "$log")"
  passed=${passed:-0} failed=${failed:-0} skipped=${skipped:-0}
  rm -f "$log"
  total_passed=$((total_passed + passed))
  total_failed=$((total_failed + failed))
  total_skipped=$((total_skipped + skipped))
  echo "$name pytest: $passed passed, $failed failed, $skipped skipped"
  [[ $rc -eq 0 ]] || failures+=("$name: pytest (rc=$rc)")
}

# -------------------------------------------------------------- release ---
run_phase release build/release \
  -DCMAKE_BUILD_TYPE=Release \
  -DTVMFFI_BUILD_TESTS=ON \
  -DTVMFFI_BUILD_BENCHMARKS=ON \
  "${CUDA_ARGS[@]}"
run_counted tidy bash .ci/tidy.sh build/release

# -------------------------------------------------------------- aarch64 ---
# Linux aarch64 (issue #27): cross-built with Debian's aarch64-linux-gnu
# toolchain (cmake/toolchains/aarch64-linux-gnu.cmake) against Catch2 built for
# the target from Debian's source (.ci/aarch64-deps.sh, kept in
# build/aarch64-deps); ctest runs every test under qemu-aarch64. Runtime, C/C++
# tests, CPU kernels and the CLI: no benchmarks, Python, fuzzers or CUDA kernels.
run_aarch64_phase() {
  local start=$SECONDS
  if ! TVMFFI_JOBS=$JOBS bash .ci/aarch64-deps.sh build/aarch64-deps; then
    failures+=("aarch64: Catch2 for the target (.ci/aarch64-deps.sh)"); return
  fi
  run_phase aarch64 build/aarch64 \
    -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake \
    "-DTVMFFI_TARGET_PREFIX=$PWD/build/aarch64-deps" \
    -DCMAKE_BUILD_TYPE=Release \
    -DTVMFFI_BUILD_TESTS=ON \
    -DTVMFFI_BUILD_BENCHMARKS=OFF \
    -DTVMFFI_BUILD_CUDA_KERNELS=OFF
  echo "aarch64: phase took $((SECONDS - start)) s"
}
run_aarch64_phase

# ---------------------------------------------------------------- wheel ---
wheel_dir=$(mktemp -d "${TMPDIR:-/tmp}/tvmffi-ci-wheel.XXXXXX")
run_wheel_phase() {
  local log rc=0 line
  banner "wheel: build, install into a venv elsewhere, test the installed package"
  log=$(mktemp)
  TVMFFI_JOBS=$JOBS TVMFFI_WHEEL_DIR=$wheel_dir bash .ci/wheel.sh 2>&1 | tee "$log" || rc=$?
  line=$(grep -E '^wheel: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$log" | tail -n 1 || true)
  rm -f "$log"
  if [[ $line =~ ^wheel:\ ([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ skipped$ ]]; then
    total_passed=$((total_passed + BASH_REMATCH[1]))
    total_failed=$((total_failed + BASH_REMATCH[2]))
    total_skipped=$((total_skipped + BASH_REMATCH[3]))
  else
    failures+=("wheel: no summary line")
  fi
  [[ $rc -eq 0 ]] || failures+=("wheel (rc=$rc)")
}
run_wheel_phase
run_counted torch bash .ci/torch.sh "$wheel_dir/dist"  # torch.compile / JAX (issue #42)

# ------------------------------------------------------ upstream, clients ---
# Both use the venv the wheel phase left (tvmffi and the tvm_ffi drop-in).
# upstream: .ci/upstream.sh (issue #39), the pinned apache-tvm-ffi release
#   (tests/upstream/VERSION) from PyPI: its C++ and Python suites, checked
#   against tests/upstream/*-expected-failures.txt, and the interop matrix with
#   its real wheel.
# clients: .ci/clients.sh (issue #40), kernel projects built with their own
#   build path (FlashInfer's JIT, CuTe DSL's TVM-FFI export); the stand-in
#   apache-tvm-ffi distribution (tests/clients/VERSIONS).
if [[ -x $wheel_dir/venv/bin/python ]]; then
  run_counted upstream env TVMFFI_JOBS="$JOBS" bash .ci/upstream.sh "$wheel_dir/venv/bin/python"
  run_counted clients env TVMFFI_JOBS="$JOBS" \
    bash .ci/clients.sh "$wheel_dir/venv/bin/python" "$wheel_dir/dist"
else
  failures+=("upstream, clients: no venv from the wheel phase")
fi
rm -rf "$wheel_dir"

# ----------------------------------------------------------------- asan ---
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
run_phase asan build/asan \
  -DCMAKE_BUILD_TYPE=Debug \
  -DTVMFFI_SANITIZE=ON \
  -DTVMFFI_BUILD_TESTS=ON \
  -DTVMFFI_BUILD_BENCHMARKS=OFF \
  -DTVMFFI_BUILD_PYTHON=ON \
  -DTVMFFI_BUILD_CUDA_KERNELS=OFF
# The sanitizer runtimes must come first in a process they did not start;
# CPython's own allocations at exit are not leaks of ours.
run_pytest asan build/asan \
  "LD_PRELOAD=$(g++ -print-file-name=libasan.so) $(g++ -print-file-name=libubsan.so)" \
  ASAN_OPTIONS=detect_leaks=0:abort_on_error=1

# ------------------------------------------------------------------ oom ---
# Out-of-memory injection (issue #14, tests/RELIABILITY.md): a small ASan/UBSan
# build with TVMFFI_FAULT_INJECTION=ON that builds only the runtime, test_oom
# and what test_oom loads; ctest runs test_oom (ASAN_OPTIONS as for asan).
run_oom_phase() {
  run_phase oom build/oom \
    -DCMAKE_BUILD_TYPE=Debug \
    -DTVMFFI_SANITIZE=ON \
    -DTVMFFI_FAULT_INJECTION=ON \
    -DTVMFFI_BUILD_TESTS=ON \
    -DTVMFFI_BUILD_KERNELS=OFF \
    -DTVMFFI_BUILD_TOOLS=OFF \
    -DTVMFFI_BUILD_BENCHMARKS=OFF \
    -DTVMFFI_BUILD_CUDA_KERNELS=OFF
}
run_oom_phase

# ----------------------------------------------------------------- tsan ---
# ThreadSanitizer (issue #14): the suites in TVMFFI_TSAN_TESTS (tests/CMakeLists.txt).
run_tsan_phase() {
  TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1" \
  run_phase tsan build/tsan \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DTVMFFI_SANITIZE_THREAD=ON \
    -DTVMFFI_BUILD_TESTS=ON \
    -DTVMFFI_BUILD_KERNELS=OFF \
    -DTVMFFI_BUILD_BENCHMARKS=OFF \
    -DTVMFFI_BUILD_CUDA_KERNELS=OFF
}
run_tsan_phase

# ----------------------------------------------------------------- fuzz ---
# libFuzzer targets of tests/fuzz, each run by ctest for TVMFFI_FUZZ_SECONDS.
run_fuzz_phase() {
  if ! command -v clang++ >/dev/null 2>&1; then
    failures+=("fuzz: clang++ not found"); return
  fi
  TVMFFI_FUZZ_SECONDS=${TVMFFI_FUZZ_SECONDS:-30} \
  ASAN_OPTIONS=detect_leaks=1 \
  run_phase fuzz build/fuzz \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang \
    -DCMAKE_CXX_COMPILER=clang++ \
    -DTVMFFI_BUILD_FUZZERS=ON \
    -DTVMFFI_BUILD_TESTS=OFF \
    -DTVMFFI_BUILD_KERNELS=OFF \
    -DTVMFFI_BUILD_BENCHMARKS=OFF \
    -DTVMFFI_BUILD_CUDA_KERNELS=OFF
  # The Python call path (issue #43): atheris over the asan phase's package,
  # TVMFFI_PY_FUZZ_SECONDS (default 20; about 40 s with the venv, cached after).
  run_counted fuzz-python bash .ci/fuzz-python.sh build/asan
}
run_fuzz_phase

summary_and_exit
