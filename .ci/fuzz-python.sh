#!/usr/bin/env bash
# The Python call path's fuzz target (issue #43), run by the fuzz phase of
# .ci/test.sh against the ASan + UBSan build tree's package (the asan phase
# builds it): tests/fuzz/python/fuzz_call.py under atheris, pinned, in a venv
# of Debian's Python that sees Debian's numpy (--system-site-packages), kept in
# ${TMPDIR:-/tmp}/tvmffi-atheris-venv while its stamp matches the pin.
# Runs for TVMFFI_PY_FUZZ_SECONDS (default 20) and fails on any finding (an
# unexpected exception, a crash, a sanitizer report). Prints the executions
# and "fuzz-python: N passed, N failed" (one target).
#
# Usage: .ci/fuzz-python.sh BUILD_DIR   (a tree with TVMFFI_BUILD_PYTHON=ON and the kernels)
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:?usage: fuzz-python.sh BUILD_DIR}" && pwd) || exit 2
pin=atheris==2.3.0
venv=${TVMFFI_ATHERIS_VENV:-${TMPDIR:-/tmp}/tvmffi-atheris-venv}
seconds=${TVMFFI_PY_FUZZ_SECONDS:-20}
kernels=$build/kernels/libtvmffi_cpu_kernels.so

if [[ ! -f $build/python/tvmffi/__init__.py || ! -f $kernels ]]; then
  echo "fuzz-python: no package or kernels in $build"
  exit 1
fi
if [[ ! -x $venv/bin/python || $(cat "$venv/tvmffi-pins.txt" 2>/dev/null) != "$pin" ]]; then
  rm -rf "$venv"
  /usr/bin/python3 -m venv --system-site-packages "$venv" &&
    "$venv/bin/pip" install -q --disable-pip-version-check --only-binary=:all: "$pin" &&
    echo "$pin" > "$venv/tvmffi-pins.txt" || {
    echo "fuzz-python: cannot install $pin"
    exit 1
  }
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/tvmffi-fuzz-python.XXXXXX")
trap 'rm -rf "$work"' EXIT
preload=""
if grep -q '^TVMFFI_SANITIZE:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
  # The sanitizer runtimes must come first in a process they did not start.
  preload="$(g++ -print-file-name=libasan.so) $(g++ -print-file-name=libubsan.so)"
fi
start=$SECONDS
rc=0
(cd "$work" &&
  env LD_PRELOAD="$preload" PYTHONPATH="$build/python" \
    ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$venv/bin/python" "$repo/tests/fuzz/python/fuzz_call.py" "$kernels" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1) \
  > "$work/log" 2>&1 || rc=$?
grep -E '^(Done|stat::number_of_executed_units|==[0-9]+==ERROR|=== Uncaught)' "$work/log" || true
if [[ $rc -ne 0 ]]; then
  tail -n 60 "$work/log"
  echo "fuzz-python: FAILED (rc=$rc) after $((SECONDS - start)) s"
  echo "fuzz-python: 0 passed, 1 failed"
  exit 1
fi
echo "fuzz-python: clean, $((SECONDS - start)) s"
echo "fuzz-python: 1 passed, 0 failed"
