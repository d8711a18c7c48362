#!/usr/bin/env bash
# Fails when a tracked file names a folder of one particular machine (a home
# directory, a workspace mount): files name paths relative to the repository,
# or take them as arguments. Usage: check_machine_paths.sh <source dir>
set -euo pipefail
src=${1:?usage: check_machine_paths.sh <source dir>}
if ! git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "SKIP: $src is not a git work tree (no list of tracked files)"
  exit 0
fi
# An absolute path starts the token: line start, blank, quote, '=', '(' or ':'.
pattern='(^|[[:space:]"'"'"'=(:`])/(home|root|work|Users|mnt|media)/[A-Za-z0-9._-]+'
hits=$(git -C "$src" ls-files -z | (cd "$src" && xargs -0 grep -HnIE "$pattern" -- 2>/dev/null) || true)
if [[ -n "$hits" ]]; then
  echo "tracked files name folders of one machine:"
  echo "$hits"
  exit 1
fi
echo "no machine-specific absolute path in $(git -C "$src" ls-files | wc -l) tracked files"
