#!/usr/bin/env bash
# Builds upstream apache/tvm-ffi's GoogleTest files one by one against OUR
# headers, links each with our libtvmffi, runs it and prints a table.
#
# Usage: tests/upstream_suite/run.sh [UPSTREAM_SRC] [TVMFFI_BUILD] [WORK_DIR]
#   UPSTREAM_SRC  an upstream source tree (tests/cpp, src/ffi/testing); default
#                 /work/peer/upstream-src
#   TVMFFI_BUILD  our build dir holding libtvmffi.so (and libtvmffi_upstream_cxx.so);
#                 default <repo>/build
#   WORK_DIR      where objects, binaries and logs go; must be outside the
#                 repository; default /work/peer/upstream-suite/<repo dir name>
# Environment: JOBS (parallel files, default 2), TEST_TIMEOUT (seconds per test
# binary, default 60), SUITE_CXXFLAGS (default -O0 -g0), ONLY (regex on the
# file names to run a subset), DLPACK_INCLUDE, GTEST_LIBS (default
# "-lgtest_main -lgtest"), CXX (default g++).
# Nothing is copied into the repository: upstream's test files are compiled
# in place and everything produced lies under WORK_DIR.
set -u

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

UPSTREAM_SRC=${1:-${UPSTREAM_SRC:-/work/peer/upstream-src}}
TVMFFI_BUILD=${2:-${TVMFFI_BUILD:-$repo/build}}
WORK_DIR=${3:-${WORK_DIR:-/work/peer/upstream-suite/$(basename "$repo")}}
JOBS=${JOBS:-2}
TEST_TIMEOUT=${TEST_TIMEOUT:-60}
SUITE_CXXFLAGS=${SUITE_CXXFLAGS:--O0 -g0}
GTEST_LIBS=${GTEST_LIBS:--lgtest_main -lgtest}
CXX=${CXX:-g++}
ONLY=${ONLY:-.}

die() { echo "run.sh: $*" >&2; exit 2; }

[ -d "$UPSTREAM_SRC/tests/cpp" ] || die "no tests/cpp under UPSTREAM_SRC=$UPSTREAM_SRC"
TVMFFI_BUILD=$(cd "$TVMFFI_BUILD" 2>/dev/null && pwd) || die "no build dir $TVMFFI_BUILD"
mkdir -p "$WORK_DIR" || die "cannot create $WORK_DIR"
WORK_DIR=$(cd "$WORK_DIR" && pwd)
case "$WORK_DIR/" in "$repo"/*) die "WORK_DIR must lie outside the repository ($repo)";; esac

# Our libraries: the runtime, and the out-of-line upstream C++ API next to it.
lib=$(find "$TVMFFI_BUILD" -name 'libtvmffi.so' \( -type f -o -type l \) | head -n1)
[ -n "$lib" ] || die "libtvmffi.so not found under $TVMFFI_BUILD (build targets tvmffi tvmffi_upstream_cxx)"
libdir=$(dirname "$lib")
cxxlib=$(find "$TVMFFI_BUILD" -name 'libtvmffi_upstream_cxx.so' \( -type f -o -type l \) | head -n1)
cxxlibdir=${cxxlib:+$(dirname "$cxxlib")}

# DLPack: the one our build configured, else the system's.
if [ -z "${DLPACK_INCLUDE:-}" ]; then
  DLPACK_INCLUDE=$(sed -n 's/^TVMFFI_DLPACK_INCLUDE_DIR:[A-Z]*=//p' "$TVMFFI_BUILD/CMakeCache.txt" 2>/dev/null)
  [ -n "$DLPACK_INCLUDE" ] || DLPACK_INCLUDE=/usr/include
fi
[ -f "$DLPACK_INCLUDE/dlpack/dlpack.h" ] || die "dlpack/dlpack.h not under $DLPACK_INCLUDE"

files=$(cd "$UPSTREAM_SRC/tests/cpp" && ls test_*.cc extra/test_*.cc 2>/dev/null | grep -E "$ONLY")
[ -n "$files" ] || die "no test files matched"

rm -rf "$WORK_DIR/files"
mkdir -p "$WORK_DIR/files"
export UPSTREAM_SRC WORK_DIR TEST_TIMEOUT SUITE_CXXFLAGS GTEST_LIBS CXX repo libdir cxxlibdir DLPACK_INCLUDE

# One file: compile, link, run. Writes WORK_DIR/files/<name>/{status,compile.log,...}.
one_file() {
  rel=$1
  name=$(echo "$rel" | tr '/' '_' | sed 's/\.cc$//')
  d=$WORK_DIR/files/$name
  mkdir -p "$d"
  src=$UPSTREAM_SRC/tests/cpp/$rel
  # shellcheck disable=SC2086
  if ! nice "$CXX" -std=c++17 $SUITE_CXXFLAGS -pthread \
      -I"$repo/cpp/include" -I"$repo/c_api/include" -I"$DLPACK_INCLUDE" \
      -c "$src" -o "$d/test.o" >"$d/compile.log" 2>&1; then
    echo compile_error >"$d/status"; return 0
  fi
  # Link with libtvmffi alone first; add the out-of-line upstream C++ API only
  # when the file needs it.
  link() {
    # shellcheck disable=SC2086
    nice "$CXX" "$d/test.o" -o "$d/test" -L"$libdir" -Wl,-rpath,"$libdir" "$@" -ltvmffi \
      $GTEST_LIBS -pthread >"$d/link.log" 2>&1
  }
  linked=tvmffi
  if ! link; then
    if [ -n "$cxxlibdir" ] && link -L"$cxxlibdir" -Wl,-rpath,"$cxxlibdir" -ltvmffi_upstream_cxx; then
      linked=tvmffi+upstream_cxx
    else
      echo link_error >"$d/status"; return 0
    fi
  fi
  echo "$linked" >"$d/linked"
  # Whole binary first; if it dies (signal, abort, timeout) each test runs alone.
  # (The braces keep the shell's own "Segmentation fault" notes out of the output.)
  { (cd "$d" && timeout -k 5 "$TEST_TIMEOUT" ./test --gtest_output="json:$d/all.json" >"$d/run.log" 2>&1); } 2>/dev/null
  rc=$?
  if [ -s "$d/all.json" ] && { [ $rc -eq 0 ] || [ $rc -eq 1 ]; }; then
    echo ran >"$d/status"; return 0
  fi
  echo "$rc" >"$d/whole_rc"
  rm -f "$d/all.json"
  mkdir -p "$d/each"
  (cd "$d" && ./test --gtest_list_tests) 2>/dev/null | awk '
    /^[^ ]/ { suite=$1; next }
    /^  / { print suite $1 }' >"$d/list.txt"
  while read -r t; do
    out=$d/each/$t
    { (cd "$d" && timeout -k 5 "$TEST_TIMEOUT" ./test --gtest_filter="$t" --gtest_output="json:$out.json" \
      >"$out.log" 2>&1); } 2>/dev/null
    echo "$t $?" >>"$d/each_rc.txt"
  done <"$d/list.txt"
  echo ran_each >"$d/status"
}
export -f one_file

start=$(date +%s)
echo "$files" | xargs -P "$JOBS" -I{} bash -c 'one_file "$@"' _ {}
end=$(date +%s)

python3 "$here/summarize.py" --upstream "$UPSTREAM_SRC" --work "$WORK_DIR" \
  --seconds $((end - start)) --files $files
