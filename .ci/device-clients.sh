#!/usr/bin/env bash
# The client kernels on the GPU machine (issue #40): FlashInfer's modules, as
# .ci/clients.sh built them here against tvmffi's headers (sm_90a), called on
# torch CUDA tensors against a torch reference, eagerly and in CUDA graphs,
# with host and kernel times (tests/clients/device_clients.py), first through
# tvmffi (the wheel's venv), then through upstream's apache-tvm-ffi wheel in a
# venv of its own: the same .so files, two runtimes.
#
# Needs .carry/clients (filled here by
#   TVMFFI_CLIENTS_BUILT=<dir> bash .ci/prepare-carry.sh
# where <dir> is TVMFFI_CLIENTS_OUT of a .ci/clients.sh run; pass carry: [".carry"]):
#   .carry/clients/modules/*.so   the built modules
#   .carry/clients/wheels/        upstream's wheels (one per CPython 3.10-3.13)
#                                 and typing_extensions, which it needs
# Env: SKIP_WHEEL_FLOW=1  reuse the venv of an earlier run (/tmp/tvmffi-device-clients)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
KEEP=/tmp/tvmffi-device-clients
carry=.carry/clients
die() { printf '[device-clients] ERROR: %s\n' "$*" >&2; exit 1; }
[[ -d $carry/modules && -d $carry/wheels ]] || die "no $carry (see the header)"

if [[ ${SKIP_WHEEL_FLOW:-0} != 1 ]]; then
  rm -rf "$KEEP" && mkdir -p "$KEEP"
  echo "[device-clients] wheel flow (.ci/device-wheel.sh), venv kept in $KEEP"
  TMPDIR=$KEEP TVMFFI_WHEEL_KEEP=1 bash .ci/device-wheel.sh >"$KEEP/device-wheel.log" 2>&1 ||
    echo "[device-clients] note: device-wheel.sh failed; its venv may still be usable (see $KEEP/device-wheel.log)"
fi
ours=$(ls -d "$KEEP"/tvmffi-wheel.*/venv 2>/dev/null | head -n 1)
[[ -x $ours/bin/python ]] || die "no venv under $KEEP"

up=$KEEP/upstream-venv
if [[ ! -x $up/bin/python ]]; then
  python3 -m venv --system-site-packages "$up" || die "venv"
  tag=$(python3 -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')
  wheel=$(ls "$carry"/wheels/apache_tvm_ffi-*-"$tag"-*.whl 2>/dev/null | head -n 1)
  [[ -n $wheel ]] || die "no upstream wheel for $tag in $carry/wheels"
  "$up/bin/pip" install -q --no-deps --no-index "$wheel" "$carry"/wheels/typing_extensions-*.whl ||
    die "installing upstream's wheel"
fi

rc=0
for side in ours upstream; do
  if [[ $side == ours ]]; then py=$ours/bin/python; else py=$up/bin/python; fi
  printf '\n==================== %s ====================\n' "$side"
  "$py" tests/clients/device_clients.py "$carry/modules" "$side" || rc=1
done
exit $rc
