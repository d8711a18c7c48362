#!/usr/bin/env bash
# The client kernels on the GPU machine (issue #40): FlashInfer's modules and
# CuTe DSL's exported kernel, as .ci/clients.sh built them here against
# tvmffi's headers (sm_90a), called on
# torch CUDA tensors against a torch reference, eagerly and in CUDA graphs,
# with host and kernel times (tests/clients/device_clients.py: rmsnorm, silu and
# gelu_tanh gated activations, RoPE, sampling, single prefill, CuTe DSL's add; each kernel whose
# module is in .carry/clients/modules), first through
# tvmffi (the wheel's venv), then through upstream's apache-tvm-ffi wheel in a
# venv of its own: the same .so files, two runtimes.
#
# Needs .carry/clients (filled here by
#   TVMFFI_CLIENTS_BUILT=<dir> bash .ci/prepare-carry.sh
# where <dir> is TVMFFI_CLIENTS_OUT of a .ci/clients.sh run; pass carry: [".carry"]):
#   .carry/clients/modules/*.so   the built modules
#   .carry/clients/wheels/        upstream's wheels (one per CPython 3.10-3.13)
#                                 and typing_extensions, which it needs
#   .carry/clients/src/           (optional, TVMFFI_CLIENTS_SRC) FlashInfer's norm and page
#                                 binding files: their compile time with nvcc and
#                                 FlashInfer's flags against tvmffi's headers and
#                                 against upstream's, RUNS times each, interleaved
# Env: RUNS (compile-time runs, default 5)
#      SIDES (default "ours upstream"; "ours upstream ours upstream" interleaves two rounds)
#      SKIP_WHEEL_FLOW=1  reuse the venv of an earlier run (/tmp/tvmffi-device-clients)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=.ci/lib.sh
source .ci/lib.sh
KEEP=/tmp/tvmffi-device-clients
carry=.carry/clients
die() { printf '[device-clients] ERROR: %s\n' "$*" >&2; exit 1; }
[[ -d $carry/modules && -d $carry/wheels ]] || die "no $carry (see the header)"

if [[ ${SKIP_WHEEL_FLOW:-0} != 1 ]]; then
  rm -rf "$KEEP" && mkdir -p "$KEEP"
  echo "[device-clients] wheel flow (.ci/device-wheel.sh), venv kept in $KEEP"
  # The venv is what this run needs; the package's own tests are device-wheel.sh's run.
  TVMFFI_WHEEL_VENV_ONLY=1 TMPDIR=$KEEP TVMFFI_WHEEL_KEEP=1 bash .ci/device-wheel.sh >"$KEEP/device-wheel.log" 2>&1 ||
    echo "[device-clients] note: device-wheel.sh failed; its venv may still be usable (see $KEEP/device-wheel.log)"
fi
ours=$(ls -d "$KEEP"/tvmffi-wheel.*/venv 2>/dev/null | head -n 1)
[[ -x $ours/bin/python ]] || die "no venv under $KEEP"

up=$KEEP/upstream-venv
if [[ ! -x $up/bin/python ]]; then
  venv_beside python3 "$up" || die "venv"
  tag=$(python3 -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')
  wheel=$(ls "$carry"/wheels/apache_tvm_ffi-*-"$tag"-*.whl 2>/dev/null | head -n 1)
  [[ -n $wheel ]] || die "no upstream wheel for $tag in $carry/wheels"
  "$up/bin/pip" install -q --no-deps --no-index "$wheel" "$carry"/wheels/typing_extensions-*.whl ||
    die "installing upstream's wheel"
fi

rc=0
for side in ${SIDES:-ours upstream}; do
  if [[ $side == ours ]]; then py=$ours/bin/python; else py=$up/bin/python; fi
  printf '\n==================== %s ====================\n' "$side"
  "$py" tests/clients/device_clients.py "$carry/modules" "$side" || rc=1
done
if [[ -d $carry/src/csrc ]]; then
  printf '\n==================== compile time: FlashInfer bindings, our headers vs upstream ====================\n'
  inc_ours=$("$ours/bin/python" -c 'import tvm_ffi.libinfo as l; print(l.find_include_path())')
  inc_up=$("$up/bin/python" -c 'import tvm_ffi.libinfo as l; print(l.find_include_path())')
  flags=(-std=c++17 --compiler-options=-fPIC --expt-relaxed-constexpr
         "-gencode=arch=compute_90a,code=sm_90a" -use_fast_math -DNDEBUG -O3
         -isystem "$carry/src/include" -isystem "$carry/src/csrc")
  for src in "$carry"/src/csrc/*.cu; do
    t_ours=() t_up=()
    for ((i = 0; i < ${RUNS:-5}; i++)); do
      for side in ours up; do
        inc=$inc_ours; [[ $side == up ]] && inc=$inc_up
        s=$(date +%s%N)
        nvcc "${flags[@]}" -isystem "$inc" -c "$src" -o "$KEEP/binding-$side.o" || { rc=1; continue; }
        ms=$((($(date +%s%N) - s) / 1000000))
        if [[ $side == ours ]]; then t_ours+=("$ms"); else t_up+=("$ms"); fi
      done
    done
    med() { printf '%s\n' "$@" | sort -n | sed -n "$((($# + 1) / 2))p"; }
    mo=$(med "${t_ours[@]}") mu=$(med "${t_up[@]}")
    echo "COMPILE $(basename "$src") ours_ms=$mo upstream_ms=$mu ratio=$(awk -v a="$mo" -v b="$mu" 'BEGIN{printf "%.2f", a/b}')"
  done
fi
exit $rc
