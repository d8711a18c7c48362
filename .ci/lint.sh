#!/usr/bin/env bash
# The first, fast phase of .ci/test.sh: formatting and lint are a machine's job.
#   clang-format  every tracked C, C++ and CUDA file (.clang-format), no diff allowed
#   ruff          `ruff check` and `ruff format --check` (pyproject.toml's [tool.ruff])
#   ShellCheck    every tracked shell script, warnings and errors (.shellcheckrc)
#   layering      .ci/check_layers.py: which folder may include which, and its
#                 own test (.ci/test_check_layers.py: a planted back-edge fails)
#   docs          docs/check_examples.py: the documents show docs/examples/ byte for byte
# ruff comes from the package registry, pinned below, into a venv under
# ${TMPDIR:-/tmp} that later runs reuse. `--fix` rewrites instead of checking.
# Prints one line per tool, then "lint: N passed, N failed", and exits non-zero
# on any finding.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

RUFF_VERSION=0.17.6
fix=0
[[ ${1:-} == --fix ]] && fix=1

venv=${TMPDIR:-/tmp}/tvmffi-lint-venv
ruff=$venv/bin/ruff
if [[ $("$ruff" --version 2>/dev/null) != "ruff $RUFF_VERSION" ]]; then
  /usr/bin/python3 -m venv "$venv" &&
    "$venv/bin/pip" install -q --disable-pip-version-check "ruff==$RUFF_VERSION" ||
    { echo "lint: could not install ruff $RUFF_VERSION"; exit 1; }
fi

passed=0 failed=0
step() {  # step NAME COMMAND...: run one tool, count it
  local name=$1 start=$SECONDS
  shift
  if "$@"; then
    passed=$((passed + 1)); echo "lint: PASS $name ($((SECONDS - start)) s)"
  else
    failed=$((failed + 1)); echo "lint: FAIL $name ($((SECONDS - start)) s)"
  fi
}

mapfile -t c_files < <(git ls-files '*.c' '*.cc' '*.h' '*.cu' '*.cuh' '*.cpp' |
                       grep -v '^tests/fuzz/corpus/')
mapfile -t sh_files < <(git ls-files '*.sh' .ci/run)

if ((fix)); then
  clang-format -i "${c_files[@]}"
  "$ruff" check --fix -q .
  "$ruff" format -q .
  python3 docs/check_examples.py --update >/dev/null
fi

clang_format() { printf '%s\0' "${c_files[@]}" | xargs -0 -P2 -n 40 clang-format --dry-run -Werror; }
step "clang-format (${#c_files[@]} files)" clang_format
step "ruff check" "$ruff" check -q .
step "ruff format" "$ruff" format --check -q .
# SC2046: the examples split `tvm-ffi-config --cxxflags` on purpose, as users type it.
step "shellcheck (${#sh_files[@]} files)" shellcheck -S warning -e SC2046 "${sh_files[@]}"
step "docs examples shown byte for byte" python3 docs/check_examples.py
step "layering (.ci/check_layers.py)" python3 .ci/check_layers.py
step "layering check's own test" python3 .ci/test_check_layers.py

echo "lint: $passed passed, $failed failed"
((failed == 0))
