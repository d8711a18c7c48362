# Cross build for Linux aarch64 with Debian's cross toolchain
# (g++-aarch64-linux-gnu, gcc-aarch64-linux-gnu; no dpkg architecture needed).
# Programs built for the target run under qemu-aarch64 (Debian's qemu-user) as
# CMAKE_CROSSCOMPILING_EMULATOR, so plain `ctest` runs the tests.
#
#   cmake -S . -B build/aarch64 -G Ninja \
#     -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake \
#     [-DTVMFFI_TARGET_PREFIX=<folder>]
#
# TVMFFI_TARGET_PREFIX (optional): a staging root with the target's
# dependencies under usr/ (Catch2 built for aarch64, which the tests need).
# .ci/aarch64-deps.sh makes one. The host's /usr/include is never searched as
# a whole (its glibc headers are x86-64's); the header-only DLPack and
# nlohmann-json, when the target has none, are copied from it into the build
# tree (cmake/tvmffi_header_deps.cmake).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(TVMFFI_CROSS_TRIPLE aarch64-linux-gnu)
set(CMAKE_C_COMPILER ${TVMFFI_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${TVMFFI_CROSS_TRIPLE}-g++)

# try_compile projects re-read this file: hand the prefix on to them.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES TVMFFI_TARGET_PREFIX)

# Debian's cross toolchain keeps the target's glibc in /usr/<triple>.
set(CMAKE_FIND_ROOT_PATH /usr/${TVMFFI_CROSS_TRIPLE})
if(TVMFFI_TARGET_PREFIX)
  list(APPEND CMAKE_FIND_ROOT_PATH ${TVMFFI_TARGET_PREFIX})
endif()
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# -L: where qemu finds the target's dynamic loader and libc.
find_program(TVMFFI_QEMU_AARCH64 qemu-aarch64)
if(TVMFFI_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${TVMFFI_QEMU_AARCH64} -L /usr/${TVMFFI_CROSS_TRIPLE})
endif()
