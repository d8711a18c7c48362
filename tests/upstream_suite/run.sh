#!/usr/bin/env bash
# Builds upstream apache/tvm-ffi's GoogleTest files against OUR headers: each
# file is compiled (and link-checked) alone, then every file that links goes
# into one test binary, as upstream builds its suite, which is run; a table
# follows.
#
# Usage: tests/upstream_suite/run.sh [UPSTREAM_SRC] [TVMFFI_BUILD] [WORK_DIR]
#   UPSTREAM_SRC  an upstream source tree (tests/cpp, src/ffi/testing); required
#                 (or the UPSTREAM_SRC environment variable)
#   TVMFFI_BUILD  our build dir holding libtvmffi.so (and libtvmffi_upstream_cxx.so);
#                 default <repo>/build
#   WORK_DIR      where objects, binaries and logs go; must be outside the
#                 repository; default a new folder under ${TMPDIR:-/tmp}
# Environment: JOBS (parallel files, default 2), TEST_TIMEOUT (seconds per test
# binary, default 60; the suite binary gets it once per file), SUITE_CXXFLAGS
# (default -O0 -g0), ONLY (regex on the file names to run a subset: only those
# go into the suite binary), DLPACK_INCLUDE, GTEST_LIBS (default
# "-lgtest_main -lgtest"), CXX (default g++), PER_FILE=1 (skip the suite
# binary: run each file's own binary, the old way), TVMFFI_INCLUDE (the headers
# to compile against, e.g. an installed package's include/; default the
# repository's cpp/include and c_api/include).
# Nothing is copied into the repository: upstream's test files (and its testing
# library, src/ffi/testing/testing.cc) are compiled in place and everything
# produced lies under WORK_DIR.
set -u

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

UPSTREAM_SRC=${1:-${UPSTREAM_SRC:-}}
[ -n "$UPSTREAM_SRC" ] || { echo "usage: run.sh UPSTREAM_SRC [TVMFFI_BUILD] [WORK_DIR]" >&2; exit 2; }
TVMFFI_BUILD=${2:-${TVMFFI_BUILD:-$repo/build}}
WORK_DIR=${3:-${WORK_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/upstream-suite.XXXXXX")}}
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

files=$(cd "$UPSTREAM_SRC/tests/cpp" && printf '%s\n' test_*.cc extra/test_*.cc | grep -E "$ONLY")
[ -n "$files" ] || die "no test files matched"

PER_FILE=${PER_FILE:-0}
if [ -n "${TVMFFI_INCLUDE:-}" ]; then
  [ -f "$TVMFFI_INCLUDE/tvm/ffi/c_api.h" ] || die "no tvm/ffi/c_api.h under TVMFFI_INCLUDE=$TVMFFI_INCLUDE"
  INCLUDES="-I$TVMFFI_INCLUDE"
else
  INCLUDES="-I$repo/cpp/include -I$repo/c_api/include"
fi
rm -rf "$WORK_DIR/files" "$WORK_DIR/suite" "$WORK_DIR/testing"
mkdir -p "$WORK_DIR/files" "$WORK_DIR/suite" "$WORK_DIR/testing"

# Upstream's private testing library (libtvm_ffi_testing: the testing.* globals
# and types, and the C symbols some tests declare extern), built from upstream's
# source against our headers, as upstream builds it: a shared library with its
# metadata exported. If it does not build, the files that need it fail to link.
testing_src=$UPSTREAM_SRC/src/ffi/testing/testing.cc
testingdir=
if [ -f "$testing_src" ]; then
  t=$WORK_DIR/testing
  # shellcheck disable=SC2086
  if nice "$CXX" -std=c++17 $SUITE_CXXFLAGS -fPIC -pthread -DTVM_FFI_DLL_EXPORT_INCLUDE_METADATA=1 \
      $INCLUDES -I"$DLPACK_INCLUDE" \
      -c "$testing_src" -o "$t/testing.o" >"$t/compile.log" 2>&1; then
    # shellcheck disable=SC2086
    if nice "$CXX" -shared "$t/testing.o" -o "$t/libtvm_ffi_testing.so" \
        -L"$libdir" -Wl,-rpath,"$libdir" ${cxxlibdir:+-L"$cxxlibdir" -Wl,-rpath,"$cxxlibdir" -ltvmffi_upstream_cxx} \
        -ltvmffi -pthread >"$t/link.log" 2>&1; then
      testingdir=$t
      echo built >"$t/status"
    else
      echo link_error >"$t/status"
    fi
  else
    echo compile_error >"$t/status"
  fi
fi

export UPSTREAM_SRC WORK_DIR TEST_TIMEOUT SUITE_CXXFLAGS GTEST_LIBS CXX repo libdir cxxlibdir INCLUDES \
  testingdir DLPACK_INCLUDE PER_FILE

# The extra libraries of a link, by the names summarize.py reports.
lib_flags() {
  for l in "$@"; do
    case $l in
      upstream_cxx) echo "-L$cxxlibdir -Wl,-rpath,$cxxlibdir -ltvmffi_upstream_cxx";;
      testing) echo "-L$testingdir -Wl,-rpath,$testingdir -ltvm_ffi_testing";;
    esac
  done
}
export -f lib_flags

# Runs binary $1 (in directory $2) under the timeout; if it dies (signal, abort,
# timeout) each of its tests runs alone. Leaves $2/all.json, or $2/each/ and
# $2/each_rc.txt; writes "ran" or "ran_each" to $2/status.
run_binary() {
  local bin=$1 d=$2 limit=$3 rc t out
  # (The braces keep the shell's own "Segmentation fault" notes out of the output.)
  { (cd "$d" && timeout -k 5 "$limit" "$bin" --gtest_output="json:$d/all.json" >"$d/run.log" 2>&1); } 2>/dev/null
  rc=$?
  if [ -s "$d/all.json" ] && { [ $rc -eq 0 ] || [ $rc -eq 1 ]; }; then
    echo ran >"$d/status"; return 0
  fi
  echo "$rc" >"$d/whole_rc"
  rm -f "$d/all.json"
  mkdir -p "$d/each"
  (cd "$d" && "$bin" --gtest_list_tests) 2>/dev/null | awk '
    /^[^ ]/ { suite=$1; next }
    /^  / { print suite $1 }' >"$d/list.txt"
  [ -s "$d/list.txt" ] || { echo no_list >"$d/status"; return 0; }
  while read -r t; do
    out=$d/each/$t
    { (cd "$d" && timeout -k 5 "$TEST_TIMEOUT" "$bin" --gtest_filter="$t" --gtest_output="json:$out.json" \
      >"$out.log" 2>&1); } 2>/dev/null
    echo "$t $?" >>"$d/each_rc.txt"
  done <"$d/list.txt"
  echo ran_each >"$d/status"
}
export -f run_binary

# One file: compile it alone, then link it alone (the per-file report, and the
# check that it may join the suite binary). Writes WORK_DIR/files/<name>/status:
# compile_error, link_error or linked (with "linked": the extra libraries).
one_file() {
  rel=$1
  name=$(echo "$rel" | tr '/' '_' | sed 's/\.cc$//')
  d=$WORK_DIR/files/$name
  mkdir -p "$d"
  src=$UPSTREAM_SRC/tests/cpp/$rel
  # shellcheck disable=SC2086
  if ! nice "$CXX" -std=c++17 $SUITE_CXXFLAGS -pthread \
      $INCLUDES -I"$DLPACK_INCLUDE" \
      -c "$src" -o "$d/test.o" >"$d/compile.log" 2>&1; then
    echo compile_error >"$d/status"; return 0
  fi
  # libtvmffi alone first; then the out-of-line upstream C++ API and upstream's
  # testing library, only when the file needs them.
  for extra in "" upstream_cxx testing "upstream_cxx testing"; do
    case $extra in *upstream_cxx*) [ -n "$cxxlibdir" ] || continue;; esac
    case $extra in *testing*) [ -n "$testingdir" ] || continue;; esac
    # shellcheck disable=SC2046,SC2086
    if nice "$CXX" "$d/test.o" -o "$d/test" -L"$libdir" -Wl,-rpath,"$libdir" $(lib_flags $extra) \
        -ltvmffi $GTEST_LIBS -pthread >"$d/link.log" 2>&1; then
      echo "tvmffi${extra:+ $extra}" | sed 's/ /+/g' >"$d/linked"
      echo linked >"$d/status"
      [ "$PER_FILE" = 1 ] && run_binary ./test "$d" "$TEST_TIMEOUT"
      return 0
    fi
    [ -n "$extra" ] || cp "$d/link.log" "$d/link_alone.log"
  done
  # Report the error of the plainest link.
  mv "$d/link_alone.log" "$d/link.log"
  echo link_error >"$d/status"
}
export -f one_file

start=$(date +%s)
echo "$files" | xargs -P "$JOBS" -I{} bash -c 'one_file "$@"' _ {}

# The suite binary: every file that linked alone, with the libraries any of
# them needed, as upstream links tests/cpp into one tvm_ffi_tests. Types that
# one file registers (test_reflection.cc's test.* objects) are then reflected
# when the others run. If it does not link, or dies before listing its tests,
# each file's own binary runs instead.
s=$WORK_DIR/suite
objs='' needs='' nfiles=0
for rel in $files; do
  name=$(echo "$rel" | tr '/' '_' | sed 's/\.cc$//')
  d=$WORK_DIR/files/$name
  [ "$(cat "$d/status" 2>/dev/null)" = linked ] || continue
  objs="$objs $d/test.o"
  nfiles=$((nfiles + 1))
  needs="$needs $(tr '+' ' ' <"$d/linked")"
done
if [ "$PER_FILE" != 1 ] && [ -n "$objs" ]; then
  extra=
  case $needs in *upstream_cxx*) extra="$extra upstream_cxx";; esac
  case $needs in *testing*) extra="$extra testing";; esac
  # shellcheck disable=SC2046,SC2086
  if nice "$CXX" $objs -o "$s/suite" -L"$libdir" -Wl,-rpath,"$libdir" $(lib_flags $extra) \
      -ltvmffi $GTEST_LIBS -pthread >"$s/link.log" 2>&1; then
    run_binary ./suite "$s" $((TEST_TIMEOUT * nfiles))
  else
    echo link_error >"$s/status"
  fi
  case $(cat "$s/status") in
    ran|ran_each) ;;
    *)
      echo "run.sh: the suite binary failed ($(cat "$s/status")): running each file's own binary" >&2
      for rel in $files; do
        name=$(echo "$rel" | tr '/' '_' | sed 's/\.cc$//')
        d=$WORK_DIR/files/$name
        [ "$(cat "$d/status" 2>/dev/null)" = linked ] && run_binary ./test "$d" "$TEST_TIMEOUT"
      done;;
  esac
fi
end=$(date +%s)

python3 "$here/summarize.py" --upstream "$UPSTREAM_SRC" --work "$WORK_DIR" \
  --seconds $((end - start)) --results "$WORK_DIR/results.tsv" --files $files
