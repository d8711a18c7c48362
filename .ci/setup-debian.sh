#!/usr/bin/env bash
# Set up a Debian 12 (bookworm) machine to build and test tvmffi.
#
# Installs (only what is missing): g++, cmake, ninja-build, pkg-config,
# binutils, clang-format + clang-tidy + shellcheck (.ci/lint.sh, .ci/tidy.sh),
# ccache (.ci/test.sh: every build phase compiles through it),
# libgtest-dev (GoogleTest: upstream's C++ suite, .ci/upstream.sh), nlohmann-json3-dev (the tool's JSON reader, header-only), clang +
# libclang-rt-dev (libFuzzer and the sanitizer runtimes, for the fuzz phase), plus
#   - libdlpack-dev >= 1.2 from Debian unstable (sid); bookworm ships 0.6,
#   - libcatch2-dev (Catch2 v3) from bookworm-backports,
#   - g++-aarch64-linux-gnu, gcc-aarch64-linux-gnu and qemu-user (the aarch64
#     phase: cross build, tests under qemu-aarch64; no dpkg architecture is
#     added); bookworm-backports is also a deb-src suite so that the phase can
#     build Catch2 for aarch64 from its Debian source (.ci/aarch64-deps.sh),
# and for the Python package (python/, Debian's /usr/bin/python3):
#   - nanobind-dev, python3-nanobind and robin-map-dev (nanobind needs
#     robin_map >= 1.3, bookworm has 1.2.1) from unstable, libeigen3-dev
#     from bookworm,
#   - python3-scikit-build-core (+ the python3-packaging it needs) from
#     bookworm-backports,
#   - python3-pytest, python3-numpy, python3-torch (CPU-only), python3-venv,
#     python3-hypothesis (python/tests/test_hostile_properties.py),
#     and python3-pip, python3-setuptools, python3-wheel (pip wheel of the
#     package and of the drop-in python/compat) from bookworm, without recommends; libtorch-dev (torch's C++ headers,
#     for tvmffi._torch_exchange: the DLPack C exchange API torch 1.13 lacks);
#   - python3-sphinx and python3-myst-parser from bookworm (the docs site,
#     docs/CMakeLists.txt; 17 packages without recommends).
# The extra suites are added as deb822 sources pinned so that nothing but the
# packages named in the pins ever comes from them.
#
# Idempotent: when everything is present it does no apt work and finishes in
# well under a second. The CUDA toolkit is NOT installed here (optional; the
# build detects it). Must run as root (or with sudo available) when something
# has to be installed.
set -euo pipefail

log() { printf '[setup] %s\n' "$*"; }
die() { printf '[setup] ERROR: %s\n' "$*" >&2; exit 1; }

KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
SRC_DIR=/etc/apt/sources.list.d
PREF_DIR=/etc/apt/preferences.d
SID_SOURCES="$SRC_DIR/tvmffi-sid.sources"
BPO_SOURCES="$SRC_DIR/tvmffi-backports.sources"
PREFS="$PREF_DIR/tvmffi-pins"

BASE_PKGS=(g++ cmake ninja-build pkg-config binutils nlohmann-json3-dev clang libclang-rt-dev
           clang-format clang-tidy shellcheck ccache libgtest-dev
           g++-aarch64-linux-gnu gcc-aarch64-linux-gnu qemu-user)
EXTRA_PKGS=(libdlpack-dev libcatch2-dev)
# Python package: the first five come from the pinned suites.
PY_PINNED_PKGS=(nanobind-dev python3-nanobind robin-map-dev python3-scikit-build-core
                python3-packaging)
PY_PKGS=("${PY_PINNED_PKGS[@]}" libeigen3-dev
         python3-pytest python3-numpy python3-torch python3-venv libtorch-dev
         python3-pip python3-setuptools python3-wheel python3-hypothesis
         python3-sphinx python3-myst-parser)

SUDO=()
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then SUDO=(sudo); fi
fi
as_root() { "${SUDO[@]}" "$@"; }

export DEBIAN_FRONTEND=noninteractive

# ---------------------------------------------------------------- checks ---
is_installed() {
  [[ $(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null || true) == installed ]]
}

dlpack_ok() {
  local h=/usr/include/dlpack/dlpack.h major minor
  [[ -f $h ]] || return 1
  major=$(sed -n 's/^#define[[:space:]]\+DLPACK_MAJOR_VERSION[[:space:]]\+\([0-9]\+\).*/\1/p' "$h")
  minor=$(sed -n 's/^#define[[:space:]]\+DLPACK_MINOR_VERSION[[:space:]]\+\([0-9]\+\).*/\1/p' "$h")
  [[ -n $major && -n $minor ]] || return 1
  (( major > 1 || (major == 1 && minor >= 2) ))
}

robin_map_ok() {
  # nanobind needs tsl::robin_map >= 1.3 (bookworm's robin-map-dev is 1.2.1).
  local h=/usr/include/tsl/robin_growth_policy.h major minor
  [[ -f $h ]] || return 1
  major=$(sed -n 's/^#define[[:space:]]\+TSL_RH_VERSION_MAJOR[[:space:]]\+\([0-9]\+\).*/\1/p' "$h")
  minor=$(sed -n 's/^#define[[:space:]]\+TSL_RH_VERSION_MINOR[[:space:]]\+\([0-9]\+\).*/\1/p' "$h")
  [[ -n $major && -n $minor ]] || return 1
  (( major == 1 && minor >= 3 ))
}

catch2_cmake_config() {
  # Print the path of Catch2 v3's CMake package config, if installed.
  local f
  for f in /usr/lib/cmake/Catch2/Catch2Config.cmake \
           /usr/lib/*/cmake/Catch2/Catch2Config.cmake \
           /usr/share/cmake/Catch2/Catch2Config.cmake \
           /usr/local/lib/cmake/Catch2/Catch2Config.cmake; do
    [[ -f $f ]] && { echo "$f"; return 0; }
  done
  return 1
}

catch2_ok() {
  # Catch2 v3 is split into a compiled library + catch_all.hpp (v2 was a
  # single catch.hpp header).
  [[ -f /usr/include/catch2/catch_all.hpp ]] && catch2_cmake_config >/dev/null
}

catch2_src_ok() {
  # Catch2 v3's source package is known to apt (the aarch64 phase builds it).
  apt-cache showsrc catch2 2>/dev/null | grep -q '^Version: 3\.'
}

# ------------------------------------------------------------ apt config ---
# Write $2 to file $1 only if the contents differ. Returns 0 if it changed.
write_if_changed() {
  local path=$1 content=$2
  if [[ -f $path ]] && [[ "$(cat "$path")" == "$content" ]]; then
    return 1
  fi
  log "writing $path"
  printf '%s\n' "$content" | as_root tee "$path" >/dev/null
  return 0
}

SID_CONTENT="# Added by tvmffi .ci/setup-debian.sh (pinned to priority 1 in $PREFS)
Types: deb
URIs: http://deb.debian.org/debian
Suites: unstable
Components: main
Signed-By: $KEYRING"

BPO_CONTENT="# Added by tvmffi .ci/setup-debian.sh (pinned to priority 1 in $PREFS)
Types: deb deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: $KEYRING"

# Specific (per-package) pins take precedence over the generic ones, whatever
# their order. 600 > 500 (bookworm's default) so the newer package wins even
# where bookworm has an older one (libdlpack-dev 0.6).
# unstable gets -1, not 1: with 1 apt still installs a package that exists
# only in sid (e.g. 'apt-get install gcc-14' would drag in sid's libc6);
# -1 means never, unless pinned up below.
PREFS_CONTENT="# Added by tvmffi .ci/setup-debian.sh
# Nothing comes from unstable (never) or bookworm-backports (only on request)
# by default ...
Package: *
Pin: release a=unstable
Pin-Priority: -1

Package: *
Pin: release n=bookworm-backports
Pin-Priority: 1

# ... except these packages.
Package: libdlpack-dev nanobind-dev python3-nanobind robin-map-dev
Pin: release a=unstable
Pin-Priority: 600

Package: libcatch2-dev python3-scikit-build-core python3-packaging
Pin: release n=bookworm-backports
Pin-Priority: 600"

configure_apt() {
  # Nothing here needs network; it only changes files when they differ.
  write_if_changed "$SID_SOURCES" "$SID_CONTENT" || true
  write_if_changed "$BPO_SOURCES" "$BPO_CONTENT" || true
  write_if_changed "$PREFS" "$PREFS_CONTENT" || true
}

apt_update() {
  log "apt-get update"
  local out rc=0
  out=$(as_root apt-get update 2>&1) || rc=$?
  printf '%s\n' "$out" | grep -E '^(E|W):' >&2 || true
  # If a suite's signing key is not in the installed keyring (e.g. a newer
  # archive key for sid), upgrade debian-archive-keyring from bookworm and
  # try once more.
  if [[ $rc -ne 0 ]] || grep -qE 'NO_PUBKEY|is not signed|EXPKEYSIG' <<<"$out"; then
    log "apt-get update reported key problems; upgrading debian-archive-keyring and retrying"
    as_root apt-get install -y -q debian-archive-keyring >/dev/null
    as_root apt-get update -q >/dev/null || die "apt-get update failed"
  fi
}

# ------------------------------------------------------------------ main ---
missing=()
for p in "${BASE_PKGS[@]}"; do
  is_installed "$p" || missing+=("$p")
done
dlpack_ok || missing+=(libdlpack-dev)
catch2_ok || missing+=(libcatch2-dev)
for p in "${PY_PKGS[@]}"; do
  is_installed "$p" || missing+=("$p")
done
if is_installed robin-map-dev && ! robin_map_ok; then missing+=(robin-map-dev); fi

need_extra=0
for p in "${missing[@]}"; do
  [[ " ${EXTRA_PKGS[*]} ${PY_PINNED_PKGS[*]} " == *" $p "* ]] && need_extra=1
done

if [[ ${#missing[@]} -eq 0 ]]; then
  # Keep the sources/pins current (no network; writes only what differs).
  if [[ $(id -u) -eq 0 ]]; then configure_apt; fi
  if ! catch2_src_ok; then
    [[ $(id -u) -eq 0 || ${#SUDO[@]} -gt 0 ]] || die "need root to add bookworm-backports' deb-src"
    configure_apt
    apt_update
  fi
  log "all packages present (g++, cmake, ninja, pkg-config, binutils, nlohmann-json, clang, dlpack >= 1.2, Catch2 v3, Python: ${PY_PKGS[*]})"
else
  [[ $(id -u) -eq 0 || ${#SUDO[@]} -gt 0 ]] || die "need root to install: ${missing[*]}"
  log "missing: ${missing[*]}"
  if [[ $need_extra -eq 1 && ! -f $KEYRING ]]; then
    # Bootstrap the keyring from the base system's own sources.
    apt_update
    as_root apt-get install -y -q --no-install-recommends debian-archive-keyring
  fi
  configure_apt
  apt_update
  log "apt-get install ${missing[*]}"
  if ! out=$(as_root apt-get install -y -q --no-install-recommends "${missing[@]}" 2>&1); then
    printf '%s\n' "$out" >&2
    die "apt-get install failed"
  fi
fi

# ---------------------------------------------------------------- verify ---
for p in "${BASE_PKGS[@]}"; do
  is_installed "$p" || die "$p is not installed"
done
command -v nm >/dev/null || die "nm not found (binutils)"
dlpack_ok || die "/usr/include/dlpack/dlpack.h missing or older than DLPack 1.2"
catch2_ok || die "Catch2 v3 (catch2/catch_all.hpp + CMake config) not found"
for p in "${PY_PKGS[@]}"; do
  is_installed "$p" || die "$p is not installed"
done
robin_map_ok || die "tsl::robin_map older than 1.3 (robin-map-dev from unstable is needed)"
catch2_src_ok || die "Catch2 v3's source package is not known to apt (bookworm-backports deb-src)"

dlpack_ver=$(sed -n 's/^#define[[:space:]]\+DLPACK_\(MAJOR\|MINOR\)_VERSION[[:space:]]\+\([0-9]\+\).*/\2/p' \
  /usr/include/dlpack/dlpack.h | paste -sd. -)
log "ok: dlpack $dlpack_ver, Catch2 $(dpkg-query -W -f='${Version}' libcatch2-dev 2>/dev/null || echo '?')" \
    "($(catch2_cmake_config))"
