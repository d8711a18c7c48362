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
#  4. the interop matrix with upstream's real wheel (tests/upstream/interop.sh):
#     our and upstream's Python packages and C++ hosts, each on its own
#     runtime, x a kernel library built against either side; one runtime per
#     process;
#  the suites are checked by tests/upstream/expect.py against its list of expected
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
#      TVMFFI_UPSTREAM_ONLY  interop, cpp or python: run that part alone
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
JOBS=${TVMFFI_JOBS:-$(nproc 2>/dev/null || echo 2)}
py=${1:?usage: .ci/upstream.sh PYTHON}
only=${TVMFFI_UPSTREAM_ONLY:-}
work=$(mktemp -d "${TMPDIR:-/tmp}/tvmffi-upstream-run.XXXXXX")
if [[ ${TVMFFI_UPSTREAM_KEEP:-0} != 1 ]]; then trap 'rm -rf "$work"' EXIT; fi
echo "upstream: working in $work"

# shellcheck source=.ci/lib.sh
source "$repo/.ci/lib.sh"
counted_begin upstream
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
UPSTREAM_VERSION='' UPSTREAM_SRC='' UPSTREAM_WHEEL=''
# shellcheck disable=SC1091  # written just above
source "$work/fetch.env"
echo "upstream: apache-tvm-ffi $UPSTREAM_VERSION, sources $UPSTREAM_SRC ($((SECONDS - t)) s)"
pkg=$("$py" -c 'import os, tvmffi; print(os.path.dirname(tvmffi.__file__))') ||
  { fails+=("import tvmffi from $py"); finish; }
echo "upstream: against the installed package $pkg"

# ------------------------------------------- the version and the globals ---
# Our one version (c_api.h's TVM_FFI_VERSION_*) is that of the pinned release's
# c_api.h, which its TVMFFIGetVersion reports: a counted check, so moving the
# pin without moving the macros fails the phase.
up_version=$(sed -n 's/^#define TVM_FFI_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\).*/\2/p' \
  "$UPSTREAM_SRC/include/tvm/ffi/c_api.h" | paste -sd.)
our_version=$("$py" -c 'import tvmffi; print(tvmffi.__version__)')
if [[ -n $up_version && $up_version == "$our_version" ]]; then
  passed=$((passed + 1))
  echo "PASS: version $our_version = the pinned release's TVM_FFI_VERSION"
else
  failed=$((failed + 1))
  fails+=("version: ours $our_version, the pinned release's c_api.h $up_version")
fi
# The ffi.* globals upstream's sources register that our runtime lacks (a
# report for whoever moves the pin; not a failure).
"$py" - "$UPSTREAM_SRC/src" <<'PY'
import pathlib, re, sys
import tvmffi
ours = set(tvmffi.registry.list_global_func_names())
theirs = set()
for path in pathlib.Path(sys.argv[1]).rglob("*.cc"):
    text = path.read_text(errors="replace")
    theirs |= set(re.findall(r'\.def(?:_packed|_method)?\(\s*"(ffi\.[A-Za-z0-9_.]+)"', text))
missing = sorted(n for n in theirs - ours if not n.endswith("."))
print(f"upstream: {len(theirs)} ffi.* globals registered upstream, {len(missing)} missing here"
      + (": " + ", ".join(missing) if missing else ""))
PY

# ------------------------------------------------------------- interop ---
if [[ -z $only || $only == interop ]]; then
  t=$SECONDS
  echo "--- interop with upstream's wheel (tests/upstream/interop.sh)"
  bash "$repo/tests/upstream/interop.sh" "$py" "$UPSTREAM_WHEEL" "$work/interop" 2>&1 |
    tee "$work/interop.log"
  line=$(grep -E '^interop: [0-9]+ passed, [0-9]+ failed$' "$work/interop.log" | tail -n 1 || true)
  if [[ $line =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then
    passed=$((passed + BASH_REMATCH[1]))
    failed=$((failed + BASH_REMATCH[2]))
  else
    fails+=("interop: no result")
  fi
  echo "upstream: interop took $((SECONDS - t)) s"
fi

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
