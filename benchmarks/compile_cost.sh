#!/usr/bin/env bash
# compile_cost.sh: what including our headers costs a compiler.
#
# Prints, for every public header and for two whole files (a kernel file that
# includes what a kernel needs, and a file that includes the umbrella
# <tvm/ffi/tvm_ffi.h>), the median `-fsyntax-only` time of RUNS runs and the
# preprocessed line count, next to a floor: a file that includes only
# <string> and <vector>. With UPSTREAM_INCLUDE set to apache/tvm-ffi's
# include/ folder, the two whole files are also measured against upstream's
# headers, side by side, and the ratio is printed.
#
# Env: CXX (default g++), RUNS (default 5), CUDA_INCLUDE (default
#      /usr/local/cuda/include, for extra/cuda/*), UPSTREAM_INCLUDE (optional),
#      DLPACK_INCLUDE (optional: a DLPack include folder for both sides, when
#      the compiler does not find <dlpack/dlpack.h> itself), HEADERS (default 1;
#      0 leaves out the per-header table and measures only the two files).
# Measure on a quiet machine: the numbers are wall-clock times.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
CXX=${CXX:-g++}
RUNS=${RUNS:-5}
CUDA_INCLUDE=${CUDA_INCLUDE:-/usr/local/cuda/include}
UPSTREAM_INCLUDE=${UPSTREAM_INCLUDE:-}
DLPACK_INCLUDE=${DLPACK_INCLUDE:-}
HEADERS=${HEADERS:-1}
OURS=(-I"$ROOT/c_api/include" -I"$ROOT/cpp/include")
[[ -n $DLPACK_INCLUDE ]] && OURS+=(-I"$DLPACK_INCLUDE")
[[ -d $CUDA_INCLUDE ]] && OURS+=(-I"$CUDA_INCLUDE")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# median_time FILE FLAGS...: median wall seconds of RUNS -fsyntax-only runs.
median_time() {
  local f=$1 t0 t1
  shift
  local times=()
  for _ in $(seq "$RUNS"); do
    t0=$(date +%s.%N)
    "$CXX" -std=c++17 -fsyntax-only "$@" "$f" >/dev/null || { echo "does not compile: $f" >&2; return 1; }
    t1=$(date +%s.%N)
    times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')")
  done
  printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (RUNS + 1) / 2 ))p"
}

div() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", (b > 0 ? a / b : 0) }'; }

lines() { # lines FILE FLAGS...: preprocessed line count.
  local f=$1
  shift
  "$CXX" -std=c++17 -E "$@" "$f" 2>/dev/null | wc -l
}

cat >"$work/floor.cc" <<'EOF'
#include <string>
#include <vector>
int main() { return 0; }
EOF

cat >"$work/kernel.cc" <<'EOF'
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/extra/cuda/device_guard.h>
#include <tvm/ffi/function.h>
namespace ffi = tvm::ffi;
void AddOne(ffi::TensorView x, ffi::TensorView y) {
  TVM_FFI_CHECK(x.ndim() == 1, ValueError) << "x must be 1-D";
  TVM_FFI_CHECK(y.ndim() == 1, ValueError) << "y must be 1-D";
}
TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_one, AddOne);
EOF

cat >"$work/umbrella.cc" <<'EOF'
#include <tvm/ffi/tvm_ffi.h>
namespace ffi = tvm::ffi;
void AddOne(ffi::TensorView x, ffi::TensorView y) {
  TVM_FFI_CHECK(x.ndim() == 1, ValueError) << "x must be 1-D";
}
TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_one, AddOne);
EOF

floor_t=$(median_time "$work/floor.cc")
floor_l=$(lines "$work/floor.cc")
printf 'compiler: %s; median of %d runs; floor (<string> + <vector>): %ss, %d lines\n\n' \
  "$("$CXX" --version | head -n 1)" "$RUNS" "$floor_t" "$floor_l"

if [[ $HEADERS != 0 ]]; then
printf '%-48s %8s %8s %9s\n' "header" "seconds" "x floor" "lines"
while IFS= read -r h; do
  rel=${h#"$ROOT"/c_api/include/}
  rel=${rel#"$ROOT"/cpp/include/}
  case $rel in tvm/ffi/extra/cuda/*) [[ -d $CUDA_INCLUDE ]] || continue ;; esac
  printf '#include <%s>\n' "$rel" >"$work/one.cc"
  t=$(median_time "$work/one.cc" "${OURS[@]}")
  l=$(lines "$work/one.cc" "${OURS[@]}")
  printf '%-48s %8s %8.2f %9d\n' "$rel" "$t" "$(div "$t" "$floor_t")" "$l"
done < <(find "$ROOT/c_api/include" "$ROOT/cpp/include" -name '*.h' | sort)
fi

echo
printf '%-48s %8s %8s %9s %10s %8s\n' "file" "seconds" "x floor" "lines" "upstream" "ratio"
for f in kernel umbrella; do
  t=$(median_time "$work/$f.cc" "${OURS[@]}")
  l=$(lines "$work/$f.cc" "${OURS[@]}")
  up="-" ratio="-"
  if [[ -n $UPSTREAM_INCLUDE ]]; then
    UP=(-I"$UPSTREAM_INCLUDE")
    [[ -n $DLPACK_INCLUDE ]] && UP+=(-I"$DLPACK_INCLUDE")
    [[ -d $CUDA_INCLUDE ]] && UP+=(-I"$CUDA_INCLUDE")
    up=$(median_time "$work/$f.cc" "${UP[@]}")
    ratio=$(printf '%.2f' "$(div "$t" "$up")")
  fi
  printf '%-48s %8s %8.2f %9d %10s %8s\n' "$f file" "$t" "$(div "$t" "$floor_t")" "$l" \
    "$up" "$ratio"
done
