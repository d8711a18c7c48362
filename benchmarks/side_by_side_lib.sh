# Shared by side_by_side.sh and side_by_side_scale.sh (sourced): the peer's
# settings, and one benchmark source built against each side.
#
# sbs_build <script name> <source>
#   Without UPSTREAM_SRC and UPSTREAM_LIB: prints a skip line and exits 0.
#   Sets OUR_LIB, CXX, CXXFLAGS, CPU, WORK (defaults as the scripts document)
#   and `pin` (taskset on CPU, when there is one); builds $WORK/ours against
#   this repository's headers and runtime and $WORK/upstream against
#   upstream's, in parallel.
sbs_build() {
  local name=$1 src=$2
  local root
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  if [[ -z "${UPSTREAM_SRC:-}" || -z "${UPSTREAM_LIB:-}" ]]; then
    echo "$name: skipped: set UPSTREAM_SRC (upstream's source tree) and UPSTREAM_LIB" \
         "(the folder with its libtvm_ffi.so) to compare with apache/tvm-ffi"
    exit 0
  fi
  OUR_LIB=${OUR_LIB:-$root/build/runtime}
  CXX=${CXX:-g++}
  CXXFLAGS=${CXXFLAGS:--O2 -DNDEBUG}
  CPU=${CPU:-1}
  WORK=${WORK:-$(mktemp -d)}
  mkdir -p "$WORK"
  local f
  for f in "$OUR_LIB/libtvmffi.so" "$UPSTREAM_LIB/libtvm_ffi.so" \
           "$UPSTREAM_SRC/include/tvm/ffi/c_api.h"; do
    [[ -e "$f" ]] || { echo "$name: missing $f" >&2; exit 1; }
  done
  echo "building into $WORK ($CXX $CXXFLAGS)"
  # shellcheck disable=SC2086
  $CXX -std=c++17 $CXXFLAGS -I"$root/cpp/include" -I"$root/c_api/include" "$src" \
    -o "$WORK/ours" -L"$OUR_LIB" -ltvmffi -Wl,-rpath,"$OUR_LIB" &
  local ours_pid=$!
  # shellcheck disable=SC2086
  $CXX -std=c++17 $CXXFLAGS -I"$UPSTREAM_SRC/include" -I"$UPSTREAM_SRC/3rdparty/dlpack/include" \
    "$src" -o "$WORK/upstream" -L"$UPSTREAM_LIB" -ltvm_ffi -Wl,-rpath,"$UPSTREAM_LIB" &
  local upstream_pid=$!
  wait "$ours_pid"
  wait "$upstream_pid"
  # shellcheck disable=SC2034  # pin is read by the script that sources this one
  {
    pin=()
    if command -v taskset >/dev/null; then pin=(taskset -c "$CPU"); fi
  }
}
