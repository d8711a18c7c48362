#!/usr/bin/env bash
# The C++ side-by-side with apache/tvm-ffi on the GPU machine's host CPU (16
# quiet cores, where wall-clock figures are steadier than on the shared CI
# box): benchmarks/side_by_side.sh in wall-clock mode (no valgrind there),
# pinned to one core, and benchmarks/compile_cost.sh for the kernel and
# umbrella files against upstream's headers.
#
# Needs .carry/upstream-cxx (TVMFFI_UPSTREAM_CXX_PEER=<dir> bash
# .ci/prepare-carry.sh here) and our libtvmffi built in $TVMFFI_BUILD
# (default build/device, as .ci/device.sh leaves it).
# Env: TVMFFI_BUILD, ROUNDS (default 7), CPU (default 3), RUNS (compile_cost, default 5).
set -euo pipefail
cd "$(dirname "$0")/.."
up=.carry/upstream-cxx
build=${TVMFFI_BUILD:-build/device}
[[ -f $up/lib/libtvm_ffi.so ]] || { echo "no $up (see the header)" >&2; exit 1; }
[[ -f $build/runtime/libtvmffi.so ]] || { echo "no $build/runtime/libtvmffi.so" >&2; exit 1; }
dlpack=.carry/dlpack/include
rc=0
printf '\n==================== side by side (wall, pinned to core %s) ====================\n' "${CPU:-3}"
UPSTREAM_SRC=$PWD/$up UPSTREAM_LIB=$PWD/$up/lib OUR_LIB=$PWD/$build/runtime SKIP_CALLGRIND=1 \
  CPU=${CPU:-3} ROUNDS=${ROUNDS:-7} CXXFLAGS="-O2 -DNDEBUG -I$PWD/$dlpack" \
  bash benchmarks/side_by_side.sh || rc=$?
printf '\n==================== compile cost vs upstream ====================\n'
HEADERS=0 RUNS=${RUNS:-5} UPSTREAM_INCLUDE=$PWD/$up/include DLPACK_INCLUDE=$PWD/$dlpack \
  bash benchmarks/compile_cost.sh || rc=$?
exit $rc
