#!/usr/bin/env bash
# The torch / JAX phase (issue #42), run by .ci/test.sh after the wheel phase:
#  1. a venv with the pinned torch from PyPI (2.11.0: a CUDA build, run on
#     the CPU here), JAX's CPU build, numpy and pytest, in
#     ${TMPDIR:-/tmp}/tvmffi-torch-venv; reused while its stamp matches the pins
#     (the first install downloads ~4 GB: torch's CUDA wheels);
#  2. our wheel installed into it: the one .ci/wheel.sh left in WHEEL_DIR
#     (TVMFFI_WHEEL_OUT), else one built here with pip wheel;
#  3. the CPU kernels compiled against the installed package (tvm-ffi-config);
#  4. pytest of the torch custom ops, autograd's rules for written tensors,
#     the JAX shape-function helper, the hostile DLPack producers and consumers
#     (read-only tensors into this torch, which ignores DLPack's read-only
#     flag), the compile benchmark in its short CPU mode (it runs; times
#     unchecked), and the docs/examples/torch examples.
# Ends with "torch: N passed, N failed, N skipped" and exits non-zero on any failure.
#
# Usage: .ci/torch.sh [WHEEL_DIR]
# Env: TVMFFI_TORCH_VENV  the venv's folder (default ${TMPDIR:-/tmp}/tvmffi-torch-venv)
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo" || exit 2
pins=(torch==2.11.0 numpy==2.4.6 pytest==8.3.5 jax==0.10.2 jaxlib==0.10.2)
venv=${TVMFFI_TORCH_VENV:-${TMPDIR:-/tmp}/tvmffi-torch-venv}
work=$(mktemp -d "${TMPDIR:-/tmp}/tvmffi-torch.XXXXXX")
trap 'rm -rf "$work"' EXIT

# shellcheck source=.ci/lib.sh
source "$repo/.ci/lib.sh"
counted_begin torch

# ------------------------------------------------------------- the venv ---
make_venv() {
  local stamp="$venv/tvmffi-pins.txt" t0=$SECONDS
  if [[ -x $venv/bin/python && -f $stamp && $(cat "$stamp") == "${pins[*]}" ]]; then
    echo "torch: reusing $venv (${pins[*]})"
    return 0
  fi
  rm -rf "$venv"
  /usr/bin/python3 -m venv "$venv" &&
    "$venv/bin/pip" install -q --disable-pip-version-check "${pins[@]}" &&
    echo "${pins[*]}" > "$stamp" &&
    echo "torch: installed ${pins[*]} in $((SECONDS - t0)) s"
}
check "venv with ${pins[*]}" make_venv
[[ -x $venv/bin/python ]] || finish
py=$venv/bin/python

# ------------------------------------------------------------ the wheel ---
wheel_dir=${1:-}
install_wheel() {
  if [[ -z $wheel_dir ]] || ! compgen -G "$wheel_dir/tvmffi-*.whl" >/dev/null; then
    wheel_dir="$work/dist"
    /usr/bin/python3 -m pip wheel -q --no-build-isolation --no-deps --no-index -w "$wheel_dir" \
      "$repo" || return 1
  fi
  "$venv/bin/pip" install -q --disable-pip-version-check --force-reinstall --no-deps \
    "$wheel_dir"/tvmffi-*.whl
}
check "install our wheel into the venv" install_wheel
kernels="$work/libtvmffi_cpu_kernels.so"
check "CPU kernels built against the installed package" bash -c '
  cfg="$1/bin/tvm-ffi-config"
  # shellcheck disable=SC2046  # the flags are words
  g++ -O2 -shared -fPIC -fvisibility=hidden kernels/cpu/cpu_kernels.cc -o "$2" \
    $("$cfg" --cxxflags) $("$cfg" --ldflags) $("$cfg" --libs)' _ "$venv" "$kernels"

# ---------------------------------------------------------------- tests ---
run_pytest() {
  local log="$work/pytest.log" rc=0
  (cd "$work" && TVMFFI_CPU_KERNELS="$kernels" "$py" -m pytest -q -rs -p no:cacheprovider \
    "$repo/python/tests/test_torch_ops.py" "$repo/python/tests/test_torch_autograd.py" \
    "$repo/python/tests/test_jax_shape.py" "$repo/python/tests/test_hostile_python.py") 2>&1 |
    tee "$log" || rc=$?
  add_pytest "$log" "$rc"
}
run_pytest

# The compile benchmark runs on the CPU too (its GPU run: .ci/device-torch.sh);
# timings are printed, never checked.
check "benchmarks/bench_torch_compile.py --device cpu --quick --sizes small" bash -c \
  '"$1" "$2/benchmarks/bench_torch_compile.py" --device cpu --cpu-kernels "$3" --quick \
     --sizes small' _ "$py" "$repo" "$kernels"

# The docs' examples (docs/torch.md), in a copy.
cp -r docs/examples/torch "$work/examples"
check "docs/examples/torch/build.sh" bash -c 'cd "$1" && PATH="$2/bin:$PATH" bash build.sh' \
  _ "$work/examples" "$venv"
check "docs/examples/torch/compile_model.py" bash -c \
  'cd "$1" && "$2" compile_model.py | tee out.log && grep -q "graph breaks: 0" out.log' \
  _ "$work/examples" "$py"
check "docs/examples/torch/dynamic_shapes.py" bash -c \
  'cd "$1" && "$2" dynamic_shapes.py | tee out.log && grep -q "^compiles: 1$" out.log &&
   grep -q "^compiles with mark_dynamic: 1$" out.log' _ "$work/examples" "$py"
check "docs/examples/torch/jax_call.py" bash -c \
  'cd "$1" && "$2" jax_call.py | tee out.log && grep -q "jit: True" out.log' \
  _ "$work/examples" "$py"
finish
