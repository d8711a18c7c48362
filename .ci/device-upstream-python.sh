#!/usr/bin/env bash
# Upstream's own Python suite (apache/tvm-ffi tests/python) against our wheel on
# the GPU machine, where its CUDA tests (load_inline with cuda_sources, the
# cubin launcher, streams, torch's DLPack exchange) run for real (issue #23).
# Runs .ci/device-wheel.sh keeping its venv (the wheel and the drop-in tvm_ffi,
# installed as a user gets them), then tests/upstream_python/run.sh on the
# upstream tree carried in .carry/upstream-tests (.ci/prepare-carry.sh with
# TVMFFI_UPSTREAM_TESTS=<upstream tree>; never committed).
#
# Env: OUT (folder for the wheel flow's log and the suite's table, reasons and
#      logs; default build/device-upstream-python), UPSTREAM_COMMIT (named in the table),
#      TVMFFI_JOBS (default 16), SKIP_WHEEL_FLOW=1 (reuse the venv of an
#      earlier run on this machine: /tmp/tvmffi-device-wheel/*/venv)
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
TREE=$ROOT/.carry/upstream-tests
OUT=${OUT:-$ROOT/build/device-upstream-python}
KEEP=/tmp/tvmffi-device-wheel
[[ -d $TREE/tests/python ]] ||
  { echo "[device-upstream-python] $TREE missing: TVMFFI_UPSTREAM_TESTS=<tree> bash .ci/prepare-carry.sh" >&2; exit 2; }
mkdir -p "$OUT"
if [[ ${SKIP_WHEEL_FLOW:-0} != 1 ]]; then
  rm -rf "$KEEP" && mkdir -p "$KEEP"
  # The wheel flow's own result is reported but does not stop the suite.
  TMPDIR=$KEEP TVMFFI_WHEEL_KEEP=1 bash .ci/device-wheel.sh >"$OUT/device-wheel.log" 2>&1 || true
  tail -n 3 "$OUT/device-wheel.log"
fi
venv=$(ls -d "$KEEP"/tvmffi-wheel.*/venv | head -n 1)
[[ -x $venv/bin/python ]] || { echo "[device-upstream-python] no venv under $KEEP" >&2; exit 1; }
# run.sh's work folder lies outside the repository; its table, reasons and
# logs are copied to OUT.
run=/tmp/tvmffi-upstream-python
rm -rf "$run"
rc=0
JOBS=${TVMFFI_JOBS:-16} tests/upstream_python/run.sh "$TREE" "$venv/bin/python" "$run" \
  >"$OUT/run.log" 2>&1 || rc=$?
cp -R "$run/summary.md" "$run/reasons.md" "$run/logs" "$OUT/" 2>/dev/null || true
tail -n 60 "$OUT/run.log"
exit "$rc"
