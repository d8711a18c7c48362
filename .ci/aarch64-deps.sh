#!/usr/bin/env bash
# The aarch64 phase's target dependencies, in a staging root (default
# build/aarch64-deps) for cmake/toolchains/aarch64-linux-gnu.cmake's
# TVMFFI_TARGET_PREFIX:
#   usr/lib, usr/include/catch2  Catch2 v3 built for aarch64-linux-gnu from
#       Debian's source package (apt-get source; setup-debian.sh adds
#       bookworm-backports as a deb-src suite), static, as libcatch2-dev is;
#   usr/include/{dlpack,nlohmann}, usr/share/cmake/nlohmann_json  links to the
#       host's header-only packages (the same for every target).
# Downloads only from Debian's archive; rebuilds only when the Catch2 version
# changes (a stamp file), so a second run takes no time.
#
# Usage: .ci/aarch64-deps.sh [ROOT]   (env TVMFFI_JOBS: build parallelism)
set -euo pipefail
cd "$(dirname "$0")/.."

ROOT=$(realpath -m "${1:-build/aarch64-deps}")
JOBS=${TVMFFI_JOBS:-$(nproc 2>/dev/null || echo 2)}
log() { printf '[aarch64-deps] %s\n' "$*"; }

mkdir -p "$ROOT/usr/include" "$ROOT/usr/share/cmake"
ln -sfn /usr/include/dlpack "$ROOT/usr/include/dlpack"
ln -sfn /usr/include/nlohmann "$ROOT/usr/include/nlohmann"
ln -sfn /usr/share/cmake/nlohmann_json "$ROOT/usr/share/cmake/nlohmann_json"

# The newest Catch2 v3 source apt knows (the host's libcatch2-dev is built from it).
ver=$(apt-cache showsrc catch2 2>/dev/null | sed -n 's/^Version: \(3\..*\)$/\1/p' | sort -V | tail -n 1)
[[ -n $ver ]] || { log "no Catch2 v3 source package known to apt (run .ci/setup-debian.sh)"; exit 1; }
stamp=$ROOT/catch2.stamp
if [[ -f $stamp && $(cat "$stamp") == "$ver" ]]; then
  log "Catch2 $ver for aarch64 already in $ROOT"
  exit 0
fi

src=$ROOT/src
rm -rf "$src" "$ROOT/catch2-build"
mkdir -p "$src"
log "apt-get source catch2=$ver"
# apt checks the files against the archive's signed index; dpkg-source then
# only warns that it has no key for the uploader's signature.
(cd "$src" && apt-get source -q --download-only "catch2=$ver" >/dev/null)
(cd "$src" && dpkg-source -q -x ./*.dsc catch2 >/dev/null)

log "building Catch2 $ver for aarch64 (-j$JOBS)"
cmake -S "$src/catch2" -B "$ROOT/catch2-build" -G Ninja \
  -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/toolchains/aarch64-linux-gnu.cmake" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$ROOT/usr" \
  -DCATCH_INSTALL_DOCS=OFF -DCATCH_INSTALL_EXTRAS=OFF -DBUILD_TESTING=OFF \
  -DCATCH_BUILD_TESTING=OFF -DCATCH_BUILD_EXAMPLES=OFF -DBUILD_SHARED_LIBS=OFF >/dev/null
cmake --build "$ROOT/catch2-build" -j "$JOBS" >/dev/null
cmake --install "$ROOT/catch2-build" >/dev/null
rm -rf "$src" "$ROOT/catch2-build"
echo "$ver" >"$stamp"
log "Catch2 $ver for aarch64 installed in $ROOT/usr"
