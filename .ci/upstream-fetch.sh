#!/usr/bin/env bash
# Fetches the pinned upstream release (tests/upstream/VERSION) of apache-tvm-ffi
# from PyPI: its binary wheel for the interpreter that runs this script
# (default Debian's /usr/bin/python3) and its source distribution, with
# `pip download --no-deps`, into a cache folder, and unpacks the sdist there.
# Upstream is a test peer: nothing of it enters the repository.
#
# Usage: .ci/upstream-fetch.sh [CACHE_DIR]
#   CACHE_DIR  default ${TMPDIR:-/tmp}/tvmffi-upstream-<version>; a folder that
#              already holds both files (and the unpacked sdist) is reused as is.
# Prints, as its last lines, shell assignments a caller may eval:
#   UPSTREAM_VERSION=...  UPSTREAM_WHEEL=...  UPSTREAM_SDIST=...  UPSTREAM_SRC=...
# Env: TVMFFI_PYTHON  the interpreter whose wheel tag is fetched.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
version=$(tr -d '[:space:]' <"$repo/tests/upstream/VERSION")
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+(\.post[0-9]+)?$ ]] ||
  { echo "upstream-fetch: bad version '$version' in tests/upstream/VERSION" >&2; exit 2; }
py=${TVMFFI_PYTHON:-/usr/bin/python3}
cache=${1:-${TMPDIR:-/tmp}/tvmffi-upstream-$version}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)

find_one() { find "$cache" -maxdepth 1 -name "$1" -print -quit; }
wheel=$(find_one "apache_tvm_ffi-$version-*.whl")
if [[ -z $wheel ]]; then
  echo "upstream-fetch: pip download apache-tvm-ffi==$version (wheel) into $cache" >&2
  "$py" -m pip download -q --no-deps --only-binary=:all: -d "$cache" \
    "apache-tvm-ffi==$version" >&2
  wheel=$(find_one "apache_tvm_ffi-$version-*.whl")
fi
sdist=$(find_one "apache_tvm_ffi-$version.tar.gz")
if [[ -z $sdist ]]; then
  # --no-binary for this package only: its build requirements stay wheels
  # (pip prepares the sdist's metadata, about 20 s).
  echo "upstream-fetch: pip download apache-tvm-ffi==$version (sdist) into $cache" >&2
  "$py" -m pip download -q --no-deps --no-binary=apache-tvm-ffi -d "$cache" \
    "apache-tvm-ffi==$version" >&2
  sdist=$(find_one "apache_tvm_ffi-$version.tar.gz")
fi
[[ -n $wheel && -n $sdist ]] || { echo "upstream-fetch: download failed" >&2; exit 1; }
src=$cache/apache_tvm_ffi-$version
if [[ ! -f $src/.unpacked ]]; then
  rm -rf "$src"
  tar -xzf "$sdist" -C "$cache"
  touch "$src/.unpacked"
fi
echo "UPSTREAM_VERSION=$version"
echo "UPSTREAM_WHEEL=$wheel"
echo "UPSTREAM_SDIST=$sdist"
echo "UPSTREAM_SRC=$src"
