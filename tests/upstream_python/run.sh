#!/usr/bin/env bash
# Runs upstream apache/tvm-ffi's Python test suite (tests/python), unchanged,
# against OUR package through the `tvm_ffi` import name, and prints a per-file
# table.
#
# Usage: tests/upstream_python/run.sh UPSTREAM_TREE PYTHON [WORK_DIR]
#   UPSTREAM_TREE  an upstream source tree (tests/python, src/ffi/testing)
#   PYTHON         the python of a venv where the tvmffi wheel and the drop-in
#                  `tvm_ffi` distribution (python/compat) are installed:
#                  `import tvm_ffi` must give tvmffi
#   WORK_DIR       where everything produced goes (must lie outside the
#                  repository and outside UPSTREAM_TREE); default: a new
#                  mktemp -d folder
# Environment:
#   ONLY          regex on the test files' paths (relative to tests/python) to
#                 run a subset, e.g. ONLY='test_(container|string)'
#   FILE_TIMEOUT  seconds one test file may run (default 600)
#   JOBS          test files run at once (default 1)
#   CXX           compiler for the testing library (default g++)
#   TESTING_CXXFLAGS  its flags (default -O1 -g0)
#   PYTEST_ARGS   extra pytest arguments for every file (e.g. "-x")
#   UPSTREAM_COMMIT  the upstream commit to name in the table (default: git
#                 rev-parse HEAD in UPSTREAM_TREE, when it is a checkout)
#
# Steps:
#  1. Upstream's testing library (src/ffi/testing/testing.cc: the testing.*
#     globals and fixture types) is compiled against the headers of the
#     installed tvmffi package and linked against its runtime (the very
#     lib/libtvm_ffi.so the package loads), into WORK_DIR/testing.
#  2. Every test file runs in a pytest process of its own (a crash or hang costs
#     that file only), with the plugin tvmffi_upstream_plugin (next to this
#     script), which loads that library before the tests run, as upstream's
#     package always has it loaded. The library's path is also exported as
#     TVMFFI_TESTING_LIB, which tvmffi.testing reads. Upstream's pytest
#     settings (its pyproject's `-n auto`) are replaced by an empty ini file.
#  3. summarize.py reads the junit XML files (WORK_DIR/junit/*.xml, merged into
#     WORK_DIR/junit.xml) and prints the table and a total line; the table
#     (markdown) is also written to WORK_DIR/summary.md, and the reasons of the
#     import errors and failures to WORK_DIR/reasons.md.
# Nothing is written into the repository or into UPSTREAM_TREE (bytecode goes
# to WORK_DIR/pycache, caches and locks to WORK_DIR).
set -u

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

die() { echo "run.sh: $*" >&2; exit 2; }

[ $# -ge 2 ] || die "usage: $0 UPSTREAM_TREE PYTHON [WORK_DIR]"
UPSTREAM_TREE=$(cd "$1" 2>/dev/null && pwd) || die "no folder $1"
PYTHON=$2
WORK_DIR=${3:-$(mktemp -d "${TMPDIR:-/tmp}/tvmffi-upstream-python.XXXXXX")}
FILE_TIMEOUT=${FILE_TIMEOUT:-600}
JOBS=${JOBS:-1}
CXX=${CXX:-g++}
TESTING_CXXFLAGS=${TESTING_CXXFLAGS:--O1 -g0}
ONLY=${ONLY:-.}
PYTEST_ARGS=${PYTEST_ARGS:-}

tests_dir=$UPSTREAM_TREE/tests/python
[ -d "$tests_dir" ] || die "no tests/python under $UPSTREAM_TREE"
case $PYTHON in
  */*) PYTHON=$(cd "$(dirname "$PYTHON")" 2>/dev/null && pwd)/$(basename "$PYTHON");;  # absolute: the tests run in WORK_DIR
esac
command -v "$PYTHON" >/dev/null 2>&1 || die "no python $PYTHON"
mkdir -p "$WORK_DIR" || die "cannot create $WORK_DIR"
WORK_DIR=$(cd "$WORK_DIR" && pwd)
case "$WORK_DIR/" in
  "$repo"/*) die "WORK_DIR must lie outside the repository ($repo)";;
  "$UPSTREAM_TREE"/*) die "WORK_DIR must lie outside UPSTREAM_TREE ($UPSTREAM_TREE)";;
esac
echo "run.sh: work dir $WORK_DIR"

# The package under test: `tvm_ffi` must be our tvmffi (the drop-in), not
# upstream's apache-tvm-ffi.
info=$("$PYTHON" - <<'PY'
import sys
try:
    import tvmffi
except Exception as err:  # noqa: BLE001
    sys.exit(f"cannot import tvmffi: {err}")
try:
    import tvm_ffi
except Exception as err:  # noqa: BLE001
    sys.exit(f"cannot import tvm_ffi (install python/compat next to the tvmffi wheel): {err}")
if tvm_ffi is not tvmffi:
    sys.exit(f"tvm_ffi is not tvmffi (tvm_ffi from {tvm_ffi.__file__}): is upstream's package installed?")
import tvmffi.libinfo as li
print(li.find_include_path())
print(li.find_libtvm_ffi())
print(tvmffi.__version__)
print(sys.version.split()[0])
PY
) || die "the package check failed (see above)"
include_dir=$(echo "$info" | sed -n 1p)
runtime=$(echo "$info" | sed -n 2p)
version=$(echo "$info" | sed -n 3p)
pyversion=$(echo "$info" | sed -n 4p)
libdir=$(dirname "$runtime")
echo "run.sh: tvmffi $version (python $pyversion), runtime $runtime"

# 1. Upstream's testing library against our installed headers and runtime.
t=$WORK_DIR/testing
rm -rf "$t"
mkdir -p "$t"
testing_lib=
testing_src=$UPSTREAM_TREE/src/ffi/testing/testing.cc
if [ -f "$testing_src" ]; then
  extra=
  [ -f "$libdir/libtvmffi_upstream_cxx.so" ] && extra=-ltvmffi_upstream_cxx
  # shellcheck disable=SC2086
  if nice "$CXX" -std=c++17 $TESTING_CXXFLAGS -fPIC -pthread -DTVM_FFI_DLL_EXPORT_INCLUDE_METADATA=1 \
      -I"$include_dir" -c "$testing_src" -o "$t/testing.o" >"$t/compile.log" 2>&1; then
    # shellcheck disable=SC2086
    if "$CXX" -shared "$t/testing.o" -o "$t/libtvm_ffi_testing.so" -L"$libdir" -Wl,-rpath,"$libdir" \
        $extra -ltvm_ffi -pthread >"$t/link.log" 2>&1; then
      testing_lib=$t/libtvm_ffi_testing.so
      echo built >"$t/status"
    else
      echo link_error >"$t/status"
    fi
  else
    echo compile_error >"$t/status"
  fi
  echo "run.sh: testing library: $(cat "$t/status")${testing_lib:+ ($testing_lib)}"
else
  echo missing >"$t/status"
  echo "run.sh: no $testing_src: the tests run without upstream's testing library"
fi

# 2. Each test file in a pytest process of its own.
cat >"$WORK_DIR/pytest.ini" <<'INI'
# Replaces upstream's [tool.pytest.ini_options] (its "-n auto" needs pytest-xdist).
[pytest]
INI
files=$(cd "$tests_dir" && find . -name 'test_*.py' | sed 's|^\./||' | sort | grep -E "$ONLY")
[ -n "$files" ] || die "no test files matched ONLY=$ONLY"
rm -rf "$WORK_DIR/junit" "$WORK_DIR/logs"
mkdir -p "$WORK_DIR/junit" "$WORK_DIR/logs" "$WORK_DIR/pycache" "$WORK_DIR/cache" "$WORK_DIR/locks"

export UPSTREAM_TREE WORK_DIR PYTHON FILE_TIMEOUT PYTEST_ARGS tests_dir
export TVMFFI_TESTING_LIB=$testing_lib
export PYTHONPATH=$here${PYTHONPATH:+:$PYTHONPATH}
export PYTHONPYCACHEPREFIX=$WORK_DIR/pycache
export TVM_FFI_CACHE_DIR=$WORK_DIR/cache
export TVM_FFI_TEST_LOCK_DIR=$WORK_DIR/locks

one_file() {
  rel=$1
  name=$(echo "$rel" | sed 's|/|__|g; s|\.py$||')
  # shellcheck disable=SC2086
  (cd "$WORK_DIR" && timeout -k 10 "$FILE_TIMEOUT" "$PYTHON" -m pytest \
    -c "$WORK_DIR/pytest.ini" --rootdir "$UPSTREAM_TREE" -p no:cacheprovider \
    -p tvmffi_upstream_plugin -q -rN --junitxml="$WORK_DIR/junit/$name.xml" \
    $PYTEST_ARGS "$tests_dir/$rel") >"$WORK_DIR/logs/$name.log" 2>&1
  echo "$rel $?" >"$WORK_DIR/logs/$name.rc"
}
export -f one_file

start=$(date +%s)
echo "$files" | xargs -P "$JOBS" -I{} bash -c 'one_file "$@"' _ {}
end=$(date +%s)

# 3. The table.
upstream_commit=${UPSTREAM_COMMIT:-$(git -C "$UPSTREAM_TREE" rev-parse HEAD 2>/dev/null || echo unknown)}
# shellcheck disable=SC2086
"$PYTHON" "$here/summarize.py" --upstream "$UPSTREAM_TREE" --work "$WORK_DIR" \
  --seconds $((end - start)) --label "tvmffi $version, python $pyversion, upstream $upstream_commit" \
  --files $files
