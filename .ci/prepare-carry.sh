#!/usr/bin/env bash
# Fill .carry/ (git-ignored) with what .ci/device.sh needs on the GPU machine,
# which has nvcc/cmake/ninja but no internet and no apt:
#   .carry/dlpack/include/dlpack/dlpack.h         DLPack header (from libdlpack-dev)
#   .carry/dlpack/lib/cmake/dlpack/*.cmake        small relocatable CMake config
#                                                 defining dlpack::dlpack
#   .carry/libcatch2-dev.deb                      Catch2 v3 (static libs + CMake
#                                                 config), unpacked by device.sh
#   .carry/nlohmann-json3-dev.deb                 nlohmann-json (header-only, for
#                                                 the tvmffi tool), unpacked likewise
#   .carry/nanobind/                              nanobind's CMake package and
#                                                 sources (nanobind-dev) with the
#                                                 robin_map headers in ext/, for
#                                                 -DTVMFFI_NANOBIND_DIR (Python package)
#   .carry/pylib/                                 pytest and its pure-Python
#                                                 dependencies (Debian's), used by
#                                                 .ci/device-python.sh only where the
#                                                 machine's Python lacks pytest
#   .carry/upstream/                              only with TVMFFI_UPSTREAM_PEER=<dir>: upstream
#                                                 tvm_ffi's Python package for the side-by-side
#                                                 benchmark (.ci/device-python-upstream.sh), never
#                                                 committed: tvm_ffi/ (its Python sources, headers
#                                                 in include/, prebuilt lib/libtvm_ffi.so and
#                                                 lib/libtvm_ffi_testing.so) and core.cpp (its
#                                                 core.pyx cythonized here). <dir> holds
#                                                 upstream-src/ (apache/tvm-ffi's tree, DLPack
#                                                 header in 3rdparty/) and upstream-build/lib/
#                                                 (libtvm_ffi.so and libtvm_ffi_testing.so built
#                                                 from that tree); Cython >= 3 must be
#                                                 importable by /usr/bin/python3, or on
#                                                 TVMFFI_CYTHON_PATH (a dist-packages folder).
#   .carry/upstream-tests/                        only with TVMFFI_UPSTREAM_TESTS=<tree> (an
#                                                 apache/tvm-ffi source tree): its tests/python
#                                                 and src/ffi/testing, for upstream's Python
#                                                 suite on the GPU machine
#                                                 (.ci/device-upstream-python.sh); never committed
#   .carry/upstream-cxx/                          only with TVMFFI_UPSTREAM_CXX_PEER=<dir> (same
#                                                 layout as above): upstream's include/, its DLPack
#                                                 header and lib/libtvm_ffi.so, for the C++
#                                                 side-by-side on the GPU machine's quiet host
#                                                 (.ci/device-side-by-side.sh); never committed
#   .carry/clients/                               only with TVMFFI_CLIENTS_BUILT=<dir> (the
#                                                 TVMFFI_CLIENTS_OUT of a .ci/clients.sh run):
#                                                 modules/ (FlashInfer's JIT modules built
#                                                 there) and wheels/ (upstream's apache-tvm-ffi,
#                                                 tests/clients/VERSIONS, for CPython 3.10-3.13
#                                                 or the versions in TVMFFI_CARRY_PYTHONS, e.g.
#                                                 "3.12", and typing_extensions), for
#                                                 .ci/device-clients.sh (with CuTe DSL's kernel,
#                                                 its runtime library is ~42 MiB of the 64);
#                                                 with TVMFFI_CLIENTS_SRC=<unpacked flashinfer-python
#                                                 wheel> also src/: FlashInfer's norm and page binding
#                                                 files and the two headers they include, for the
#                                                 compile-time comparison there
# Runs here (Debian 12), after .ci/setup-debian.sh. Result is well under 1 MiB
# (about 12 MiB with .carry/upstream).
set -euo pipefail

log() { printf '[carry] %s\n' "$*"; }
die() { printf '[carry] ERROR: %s\n' "$*" >&2; exit 1; }

# The folders named by TVMFFI_UPSTREAM_PEER, TVMFFI_UPSTREAM_CXX_PEER and
# TVMFFI_CYTHON_PATH may be relative to where the script is started.
abs_path() { if [[ -z $1 || $1 == /* ]]; then printf '%s' "$1"; else printf '%s/%s' "$PWD" "$1"; fi; }
TVMFFI_UPSTREAM_PEER=$(abs_path "${TVMFFI_UPSTREAM_PEER:-}")
TVMFFI_UPSTREAM_CXX_PEER=$(abs_path "${TVMFFI_UPSTREAM_CXX_PEER:-}")
TVMFFI_CYTHON_PATH=$(abs_path "${TVMFFI_CYTHON_PATH:-}")
TVMFFI_UPSTREAM_TESTS=$(abs_path "${TVMFFI_UPSTREAM_TESTS:-}")
TVMFFI_CLIENTS_BUILT=$(abs_path "${TVMFFI_CLIENTS_BUILT:-}")
TVMFFI_CLIENTS_SRC=$(abs_path "${TVMFFI_CLIENTS_SRC:-}")

cd "$(dirname "$0")/.."
ROOT_ABS=$PWD
bash .ci/setup-debian.sh

CARRY=.carry
rm -rf "$CARRY"
mkdir -p "$CARRY/dlpack/include/dlpack" "$CARRY/dlpack/lib/cmake/dlpack"

# ---- DLPack -----------------------------------------------------------------
hdr=/usr/include/dlpack/dlpack.h
cp "$hdr" "$CARRY/dlpack/include/dlpack/"
major=$(sed -n 's/^#define[[:space:]]\+DLPACK_MAJOR_VERSION[[:space:]]\+\([0-9]\+\).*/\1/p' "$hdr")
minor=$(sed -n 's/^#define[[:space:]]\+DLPACK_MINOR_VERSION[[:space:]]\+\([0-9]\+\).*/\1/p' "$hdr")
[[ -n $major && -n $minor ]] || die "cannot read DLPack version from $hdr"

# Hand-written config rather than the packaged one: the packaged
# dlpackTargets.cmake lives in lib/<multiarch>/cmake and computes its prefix
# from that depth, and its ConfigVersion says 0.6 even for DLPack 1.3.
cat >"$CARRY/dlpack/lib/cmake/dlpack/dlpackConfig.cmake" <<'EOF'
# Minimal relocatable DLPack config (written by tvmffi .ci/prepare-carry.sh).
get_filename_component(_dlpack_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
if(NOT TARGET dlpack::dlpack)
  add_library(dlpack::dlpack INTERFACE IMPORTED)
  set_target_properties(dlpack::dlpack PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${_dlpack_prefix}/include")
endif()
unset(_dlpack_prefix)
set(dlpack_FOUND TRUE)
EOF
cat >"$CARRY/dlpack/lib/cmake/dlpack/dlpackConfigVersion.cmake" <<EOF
# Version of the carried dlpack.h (written by tvmffi .ci/prepare-carry.sh).
set(PACKAGE_VERSION "$major.$minor")
if(PACKAGE_VERSION VERSION_LESS PACKAGE_FIND_VERSION)
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
else()
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
  if(PACKAGE_FIND_VERSION STREQUAL PACKAGE_VERSION)
    set(PACKAGE_VERSION_EXACT TRUE)
  endif()
endif()
EOF
log "dlpack $major.$minor -> $CARRY/dlpack"

# ---- Catch2 v3 --------------------------------------------------------------
ver=$(dpkg-query -W -f='${Version}' libcatch2-dev)
log "apt-get download libcatch2-dev=$ver"
# (As root apt warns that it downloads unsandboxed; harmless, hidden.)
( cd "$CARRY" && apt-get download -q "libcatch2-dev=$ver" ) 2>&1 |
  { grep -v -e unsandboxed -e '^Get:' -e '^Fetched' || true; }
# Plain file name (no '~' or ':'), so nothing on the way chokes on it.
deb=$CARRY/libcatch2-dev.deb
mv "$CARRY"/libcatch2-dev_*.deb "$deb"

contents=$(dpkg-deb -c "$deb")
for f in ./usr/lib/libCatch2.a ./usr/lib/libCatch2Main.a \
         ./usr/lib/cmake/Catch2/Catch2Config.cmake ./usr/include/catch2/catch_all.hpp; do
  grep -q " $f\$" <<<"$contents" || die "$deb lacks $f"
done
deps=$(dpkg-deb -f "$deb" Depends Pre-Depends)
[[ -z $deps ]] || log "note: $deb has dependencies: $deps"
log "catch2 $ver -> $deb"

# ---- nlohmann-json (header-only; its CMake config is relocatable) -----------
ver=$(dpkg-query -W -f='${Version}' nlohmann-json3-dev)
log "apt-get download nlohmann-json3-dev=$ver"
( cd "$CARRY" && apt-get download -q "nlohmann-json3-dev=$ver" ) 2>&1 |
  { grep -v -e unsandboxed -e '^Get:' -e '^Fetched' || true; }
deb=$CARRY/nlohmann-json3-dev.deb
mv "$CARRY"/nlohmann-json3-dev_*.deb "$deb"
contents=$(dpkg-deb -c "$deb")
for f in ./usr/include/nlohmann/json.hpp ./usr/share/cmake/nlohmann_json/nlohmann_jsonConfig.cmake; do
  grep -q " $f\$" <<<"$contents" || die "$deb lacks $f"
done
log "nlohmann-json $ver -> $deb"

# ---- nanobind (Python package) -------------------------------------------------
# nanobind's config takes its root from its own location and looks for
# robin_map in <root>/ext/robin_map/include first. -L: copies, not links.
nb=/usr/share/nanobind
[[ -f $nb/cmake/nanobind-config.cmake ]] || die "nanobind-dev not installed ($nb)"
mkdir -p "$CARRY/nanobind/ext/robin_map/include"
cp -RL "$nb/cmake" "$nb/include" "$nb/src" "$CARRY/nanobind/"
cp -RL /usr/include/tsl "$CARRY/nanobind/ext/robin_map/include/"
log "nanobind $(dpkg-query -W -f='${Version}' nanobind-dev) + robin_map" \
    "$(dpkg-query -W -f='${Version}' robin-map-dev) -> $CARRY/nanobind"

# ---- pytest and scikit-build-core (pure Python; for a device Python without) ---
dist=/usr/lib/python3/dist-packages
mkdir -p "$CARRY/pylib"
for p in _pytest pytest py.py pluggy iniconfig attr attrs packaging; do
  [[ -e $dist/$p ]] || die "$dist/$p missing (python3-pytest and its dependencies)"
  cp -RL "$dist/$p" "$CARRY/pylib/"
done
# scikit-build-core (pure Python), to build the wheel there (.ci/device-wheel.sh);
# with its dist-info, so pip sees the build requirement as installed.
for p in scikit_build_core pathspec; do
  [[ -e $dist/$p ]] || die "$dist/$p missing (python3-scikit-build-core)"
  cp -RL "$dist/$p" "$dist"/"$p"-*.dist-info "$CARRY/pylib/"
done
find "$CARRY/pylib" -name __pycache__ -prune -exec rm -rf {} +
log "pytest $(dpkg-query -W -f='${Version}' python3-pytest), scikit-build-core" \
    "$(dpkg-query -W -f='${Version}' python3-scikit-build-core) -> $CARRY/pylib"

# ---- upstream tvm_ffi's Python package (optional; side-by-side benchmark) ----
if [[ -n ${TVMFFI_UPSTREAM_PEER:-} ]]; then
  src=$TVMFFI_UPSTREAM_PEER/upstream-src
  lib=$TVMFFI_UPSTREAM_PEER/upstream-build/lib
  up=$CARRY/upstream
  for f in "$src/python/tvm_ffi/cython/core.pyx" "$src/include/tvm/ffi/c_api.h" \
           "$src/3rdparty/dlpack/include/dlpack/dlpack.h" "$lib/libtvm_ffi.so" \
           "$lib/libtvm_ffi_testing.so"; do
    [[ -f $f ]] || die "upstream peer: $f missing"
  done
  cy_path=${TVMFFI_CYTHON_PATH:-}
  pp=${cy_path}${cy_path:+:}${PYTHONPATH:-}
  cy_ver=$(PYTHONPATH=$pp /usr/bin/python3 -c 'import Cython; print(Cython.__version__)' 2>/dev/null) ||
    die "no Cython for /usr/bin/python3 (set TVMFFI_CYTHON_PATH)"
  [[ ${cy_ver%%.*} -ge 3 ]] || die "Cython $cy_ver is too old for upstream's core.pyx (need 3.x)"
  mkdir -p "$up"
  cp -RL "$src/python/tvm_ffi" "$up/"
  find "$up" -name __pycache__ -prune -exec rm -rf {} +
  # The layout of upstream's wheel: runtime in lib/, headers in include/.
  mkdir -p "$up/tvm_ffi/lib" "$up/tvm_ffi/include"
  cp -L "$lib/libtvm_ffi.so" "$lib/libtvm_ffi_testing.so" "$up/tvm_ffi/lib/"
  cp -RL "$src/include/tvm" "$src/3rdparty/dlpack/include/dlpack" "$up/tvm_ffi/include/"
  cp -L "$src/python/tvm_ffi/cython/"*.h "$up/tvm_ffi/include/"
  ( cd "$src/python" && PYTHONPATH=$pp /usr/bin/python3 -m cython --cplus \
      tvm_ffi/cython/core.pyx -o "$ROOT_ABS/$up/core.cpp" --module-name tvm_ffi.core )
  rm -f "$up/core.h"  # Cython's public-API header: nothing includes it
  log "upstream tvm_ffi ($(git -C "$src" describe --always 2>/dev/null || echo "source tree")," \
      "Cython $cy_ver) -> $up ($(du -sh "$up" | cut -f1))"
fi

# ---- upstream's C++ headers and runtime (optional; C++ side-by-side) ----
if [[ -n ${TVMFFI_UPSTREAM_CXX_PEER:-} ]]; then
  src=$TVMFFI_UPSTREAM_CXX_PEER/upstream-src
  lib=$TVMFFI_UPSTREAM_CXX_PEER/upstream-build/lib
  for f in "$src/include/tvm/ffi/c_api.h" "$src/3rdparty/dlpack/include/dlpack/dlpack.h" \
           "$lib/libtvm_ffi.so"; do
    [[ -f $f ]] || die "upstream C++ peer: $f missing"
  done
  up=$CARRY/upstream-cxx
  rm -rf "$up"
  mkdir -p "$up/include" "$up/3rdparty/dlpack/include" "$up/lib"
  cp -RL "$src/include/tvm" "$up/include/"
  cp -RL "$src/3rdparty/dlpack/include/dlpack" "$up/3rdparty/dlpack/include/"
  cp -L "$lib/libtvm_ffi.so" "$up/lib/"
  log "upstream C++ peer -> $up ($(du -sh "$up" | cut -f1))"
fi

# ---- upstream's Python test suite (optional; .ci/device-upstream-python.sh) ----
if [[ -n ${TVMFFI_UPSTREAM_TESTS:-} ]]; then
  for f in "$TVMFFI_UPSTREAM_TESTS/tests/python" "$TVMFFI_UPSTREAM_TESTS/src/ffi/testing/testing.cc"; do
    [[ -e $f ]] || die "upstream tests: $f missing"
  done
  up=$CARRY/upstream-tests
  rm -rf "$up"
  mkdir -p "$up/tests" "$up/src/ffi"
  cp -RL "$TVMFFI_UPSTREAM_TESTS/tests/python" "$up/tests/"
  cp -RL "$TVMFFI_UPSTREAM_TESTS/src/ffi/testing" "$up/src/ffi/"
  find "$up" -name __pycache__ -prune -exec rm -rf {} +
  log "upstream Python suite -> $up ($(du -sh "$up" | cut -f1))"
fi

# ---- client kernels and upstream's wheels (optional; .ci/device-clients.sh) ----
if [[ -n ${TVMFFI_CLIENTS_BUILT:-} ]]; then
  ls "$TVMFFI_CLIENTS_BUILT"/*.so >/dev/null 2>&1 || die "no modules in $TVMFFI_CLIENTS_BUILT"
  up=$CARRY/clients
  mkdir -p "$up/modules" "$up/wheels"
  cp -L "$TVMFFI_CLIENTS_BUILT"/*.so "$up/modules/"
  upstream=$(sed -n 's/^apache-tvm-ffi==\([^[:space:]]*\).*/\1/p' tests/clients/VERSIONS)
  for v in ${TVMFFI_CARRY_PYTHONS:-3.10 3.11 3.12 3.13}; do
    /usr/bin/python3 -m pip download -q --no-deps --only-binary=:all: --python-version "$v" \
      --platform manylinux_2_28_x86_64 -d "$up/wheels" "apache-tvm-ffi==$upstream" ||
      die "pip download apache-tvm-ffi==$upstream for CPython $v"
  done
  /usr/bin/python3 -m pip download -q --no-deps --only-binary=:all: -d "$up/wheels" \
    "typing_extensions==4.15.0" || die "pip download typing_extensions"
  if [[ -n ${TVMFFI_CLIENTS_SRC:-} ]]; then
    data=$TVMFFI_CLIENTS_SRC/flashinfer/data
    for f in csrc/flashinfer_norm_binding.cu csrc/flashinfer_page_binding.cu csrc/tvm_ffi_utils.h \
             include/flashinfer/layout.cuh; do
      [[ -f $data/$f ]] || die "flashinfer source: $data/$f missing"
      mkdir -p "$up/src/$(dirname "$f")" && cp "$data/$f" "$up/src/$f"
    done
  fi
  log "client modules ($(ls "$up/modules" | tr '\n' ' ')) and upstream $upstream wheels" \
      "-> $up ($(du -sh "$up" | cut -f1))"
fi

log "done: $(du -sh "$CARRY" | cut -f1) in $CARRY/"
