#!/usr/bin/env bash
# The interop matrix with upstream's real wheel (issue #39), run by
# .ci/upstream.sh: hosts x libraries, each cell one process.
#   hosts:     our Python package (`import tvm_ffi` = tvmffi, in PYTHON's venv),
#              upstream's Python package (its wheel, in a venv of its own),
#              a C++ host built against our package and linked to our
#              libtvm_ffi.so, the same host built against upstream's wheel and
#              linked to upstream's libtvm_ffi.so (xhost.cc);
#   libraries: xlib.cc built with our package's tvm-ffi-config and with
#              upstream's (tvm_ffi.libinfo / tvm-ffi-config).
# Every cell checks Array, Map, String, Function, Tensor, BigInt and errors crossing
# both ways and that the process holds one runtime (interop_check.py, xhost.cc).
#
# Usage: tests/upstream/interop.sh PYTHON UPSTREAM_WHEEL WORK
# Ends with "interop: N passed, N failed" (checks summed over the cells).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
py=${1:?usage: interop.sh PYTHON UPSTREAM_WHEEL WORK}
wheel=${2:?usage: interop.sh PYTHON UPSTREAM_WHEEL WORK}
work=${3:?usage: interop.sh PYTHON UPSTREAM_WHEEL WORK}
mkdir -p "$work"
# shellcheck source=.ci/lib.sh
source "$here/../../.ci/lib.sh"
passed=0 failed=0
finish() { echo "interop: $passed passed, $failed failed"; [[ $failed -eq 0 ]]; exit; }
broken() { echo "interop FAIL: $*"; failed=$((failed + 1)); finish; }

# Upstream's package in a venv of its own (its dependencies from PyPI).
upvenv=$work/upstream-venv
if ! { venv_beside "${TVMFFI_PYTHON:-/usr/bin/python3}" "$upvenv" &&
        "$upvenv/bin/pip" install -q "$wheel"; }; then
  broken "install upstream's wheel into a venv"
fi
ours_cfg=$(dirname "$py")/tvm-ffi-config
up_cfg=$upvenv/bin/tvm-ffi-config
[[ -x $ours_cfg && -x $up_cfg ]] || broken "tvm-ffi-config missing"

build() {  # build SIDE CFG: xlib_SIDE.so and xhost_SIDE
  local cfg=$2 flags
  flags="$("$cfg" --cxxflags) $("$cfg" --ldflags) $("$cfg" --libs)"
  # shellcheck disable=SC2086  # the flags are meant to split
  nice g++ -std=c++17 -O1 -shared -fPIC -fvisibility=hidden "$here/xlib.cc" $flags \
    -o "$work/xlib_$1.so" || return 1
  # shellcheck disable=SC2086  # the flags are meant to split
  nice g++ -std=c++17 -O1 "$here/xhost.cc" $flags -Wl,-rpath,"$("$cfg" --libdir)" \
    -o "$work/xhost_$1"
}
build ours "$ours_cfg" || broken "build xlib/xhost against our package"
build upstream "$up_cfg" || broken "build xlib/xhost against upstream's wheel"

cell() {  # cell NAME COMMAND...: one process; adds its counts
  local name=$1 out line
  shift
  out=$("$@" 2>&1)
  line=$(grep -E '^interop: [0-9]+ passed, [0-9]+ failed$' <<<"$out" | tail -n 1)
  if [[ $line =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then
    passed=$((passed + BASH_REMATCH[1]))
    failed=$((failed + BASH_REMATCH[2]))
    echo "| $name | ${BASH_REMATCH[1]} / $((BASH_REMATCH[1] + BASH_REMATCH[2])) |"
  else
    failed=$((failed + 1))
    echo "| $name | did not finish |"
  fi
  grep -E '^FAIL' <<<"$out" | sed 's/^/    /'
  [[ -n $line ]] || tail -n 5 <<<"$out" | sed 's/^/    /'
}
echo "| host (runtime) x library (built against) | checks passed |"
echo "|---|---:|"
for lib in ours upstream; do
  cell "our Python x $lib" env -C "$work" "$py" "$here/interop_check.py" "$work/xlib_$lib.so"
  cell "upstream's Python x $lib" env -C "$work" TVM_FFI_DISABLE_TORCH_C_DLPACK=1 \
    "$upvenv/bin/python" "$here/interop_check.py" "$work/xlib_$lib.so"
  cell "our C++ host x $lib" "$work/xhost_ours" "$work/xlib_$lib.so"
  cell "upstream's C++ host x $lib" "$work/xhost_upstream" "$work/xlib_$lib.so"
done
finish
