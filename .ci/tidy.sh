#!/usr/bin/env bash
# clang-tidy (.clang-tidy: bug-finding checks only) over the product sources that
# BUILD_DIR compiles: runtime/, tools/, kernels/ and python/src/, read from
# BUILD_DIR/compile_commands.json. Prints "tidy: N passed, N failed" (one per
# file) and exits non-zero on any finding.
# Usage: .ci/tidy.sh BUILD_DIR   Env: TVMFFI_JOBS (default: number of CPUs)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
build=${1:?usage: .ci/tidy.sh BUILD_DIR}
jobs=${TVMFFI_JOBS:-$(nproc 2>/dev/null || echo 2)}
db=$build/compile_commands.json
[[ -f $db ]] || { echo "tidy: no $db"; exit 1; }

mapfile -t files < <(python3 - "$db" "$PWD" <<'PY'
import json, os, sys
root = sys.argv[2]
seen = set()
for entry in json.load(open(sys.argv[1])):
    path = os.path.relpath(os.path.join(entry["directory"], entry["file"]), root)
    if path.split("/")[0] in ("runtime", "tools", "kernels", "python") and path.endswith(".cc"):
        seen.add(path)
print("\n".join(sorted(seen)))
PY
)
log=$(mktemp -d)
printf '%s\n' "${files[@]}" |
  xargs -P "$jobs" -I{} sh -c 'clang-tidy -p "$1" --quiet "$2" > "$3/$(echo "$2" | tr / _).log" 2>&1' _ "$build" {} "$log"
passed=0 failed=0
for f in "${files[@]}"; do
  out=$log/$(echo "$f" | tr / _).log
  if grep -qE '(warning|error): ' "$out"; then
    failed=$((failed + 1)); echo "tidy: FAIL $f"; grep -E '(warning|error): ' "$out"
  else
    passed=$((passed + 1))
  fi
done
rm -rf "$log"
echo "tidy: $passed passed, $failed failed"
((failed == 0 && passed > 0))
