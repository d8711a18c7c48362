#!/usr/bin/env bash
# The upstream phase of .ci/test.sh (issue #39): apache-tvm-ffi's newest release,
# pinned in tests/upstream/VERSION, as the peer. Run after .ci/wheel.sh, on the
# venv it leaves (the tvmffi wheel and the drop-in `tvm_ffi` installed); builds
# nothing of ours again.
#  1. .ci/upstream-fetch.sh: the pinned release's wheel and sdist from PyPI
#     into a cache folder under ${TMPDIR:-/tmp} (reused when present);
#  2. upstream's C++ GoogleTest suite (the sdist's tests/cpp, with its testing
#     library from src/ffi/testing) compiled against the installed package's
#     headers and linked with its libraries (tests/upstream_suite/run.sh);
#  3. upstream's Python suite (the sdist's tests/python) with `import tvm_ffi`
#     resolving to ours (tests/upstream_python/run.sh);
#  each checked by tests/upstream/expect.py against its list of expected
#  failures (tests/upstream/{cpp,python}-expected-failures.txt): a failing
#  test not on the list fails the phase; a listed test that passes is reported.
# Ends with "upstream: N passed, N failed, N skipped": failed counts unlisted
# failures only; skipped counts skipped tests and listed (expected) failures.
#
# Usage: .ci/upstream.sh PYTHON
#   PYTHON  the venv's python (tvmffi and the drop-in tvm_ffi installed)
# Env: TVMFFI_JOBS  parallelism (default: number of CPUs)
#      TVMFFI_UPSTREAM_CACHE  the download cache (default: .ci/upstream-fetch.sh's)
#      TVMFFI_UPSTREAM_KEEP=1  keep the work folder (its path is printed)
#      TVMFFI_UPSTREAM_ONLY  cpp or python: run that suite alone
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
JOBS=${TVMFFI_JOBS:-$(nproc 2>/dev/null || echo 2)}
py=${1:?usage: .ci/upstream.sh PYTHON}
only=${TVMFFI_UPSTREAM_ONLY:-}
work=$(mktemp -d "${TMPDIR:-/tmp}/tvmffi-upstream-run.XXXXXX")
if [[ ${TVMFFI_UPSTREAM_KEEP:-0} != 1 ]]; then trap 'rm -rf "$work"' EXIT; fi
echo "upstream: working in $work"

passed=0 failed=0 skipped=0
fails=()
start=$SECONDS
finish() {
  [[ ${#fails[@]} -eq 0 ]] || printf 'upstream FAILED: %s\n' "${fails[@]}"
  echo "upstream: phase took $((SECONDS - start)) s"
  echo "upstream: $passed passed, $failed failed, $skipped skipped"
  [[ $failed -eq 0 && ${#fails[@]} -eq 0 ]]
  exit
}
add_counts() {  # add_counts LOG NAME: add expect.py's last line to the totals
  local line
  line=$(grep -E "^$2: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped, [0-9]+ expected failures$" "$1" |
         tail -n 1 || true)
  if [[ $line =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ skipped,\ ([0-9]+)\ expected ]]; then
    passed=$((passed + BASH_REMATCH[1]))
    failed=$((failed + BASH_REMATCH[2]))
    skipped=$((skipped + BASH_REMATCH[3] + BASH_REMATCH[4]))
  else
    fails+=("$2: no result")
  fi
}

# ------------------------------------------------------------- fetch ---
t=$SECONDS
if ! "$repo/.ci/upstream-fetch.sh" ${TVMFFI_UPSTREAM_CACHE:+"$TVMFFI_UPSTREAM_CACHE"} >"$work/fetch.env"; then
  fails+=("fetch the pinned release (.ci/upstream-fetch.sh)")
  finish
fi
UPSTREAM_VERSION='' UPSTREAM_SRC=''
# shellcheck disable=SC1091  # written just above
source "$work/fetch.env"
echo "upstream: apache-tvm-ffi $UPSTREAM_VERSION, sources $UPSTREAM_SRC ($((SECONDS - t)) s)"
pkg=$("$py" -c 'import os, tvmffi; print(os.path.dirname(tvmffi.__file__))') ||
  { fails+=("import tvmffi from $py"); finish; }
echo "upstream: against the installed package $pkg"

# ------------------------------------------------------------ C++ suite ---
if [[ -z $only || $only == cpp ]]; then
  t=$SECONDS
  echo "--- upstream's C++ suite (tests/cpp of the sdist)"
  JOBS=$JOBS TVMFFI_INCLUDE="$pkg/include" DLPACK_INCLUDE="$pkg/include" \
    bash "$repo/tests/upstream_suite/run.sh" "$UPSTREAM_SRC" "$pkg/lib" "$work/cpp" \
    >"$work/cpp.log" 2>&1
  grep -E '^(Files compiling|Tests passing|Run as|Upstream.s testing library)' "$work/cpp.log"
  python3 "$repo/tests/upstream/expect.py" cpp "$work/cpp/results.tsv" \
    "$repo/tests/upstream/cpp-expected-failures.txt" 2>&1 | tee "$work/cpp-expect.log"
  add_counts "$work/cpp-expect.log" "upstream cpp"
  echo "upstream: the C++ suite took $((SECONDS - t)) s"
fi

# --------------------------------------------------------- Python suite ---
if [[ -z $only || $only == python ]]; then
  t=$SECONDS
  echo "--- upstream's Python suite (tests/python of the sdist)"
  JOBS=$JOBS FILE_TIMEOUT=${FILE_TIMEOUT:-300} UPSTREAM_COMMIT="$UPSTREAM_VERSION (sdist)" \
    bash "$repo/tests/upstream_python/run.sh" "$UPSTREAM_SRC" "$py" "$work/python" \
    >"$work/python.log" 2>&1
  grep -E '^(\*\*)?(total|Total)' "$work/python.log" | tail -n 2
  "$py" "$repo/tests/upstream/expect.py" python "$work/python" "$UPSTREAM_SRC" \
    "$repo/tests/upstream/python-expected-failures.txt" 2>&1 | tee "$work/python-expect.log"
  add_counts "$work/python-expect.log" "upstream python"
  echo "upstream: the Python suite took $((SECONDS - t)) s"
fi

finish
