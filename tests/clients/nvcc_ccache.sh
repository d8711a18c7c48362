#!/usr/bin/env bash
# FlashInfer's compiler launcher (FLASHINFER_NVCC_LAUNCHER) in .ci/clients.sh:
# `nvcc_ccache.sh NVCC ARGS...` runs NVCC through ccache. FlashInfer's ninja rule
# asks nvcc for its dependency file with --generate-dependencies-with-compile,
# which Debian's ccache (4.7) passes on to its preprocessing run, where nvcc
# fails, so nothing is cached; -MD writes the same file (-MF names it) and
# ccache understands it. Every other argument is passed unchanged.
set -euo pipefail
args=()
for a in "$@"; do
  if [[ $a == --generate-dependencies-with-compile ]]; then args+=(-MD); else args+=("$a"); fi
done
if command -v ccache >/dev/null 2>&1; then exec ccache "${args[@]}"; fi
exec "${args[@]}"
