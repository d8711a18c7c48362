#!/usr/bin/env bash
# Run the code examples of README.md and docs/ (the files under docs/examples/)
# against an installed tvmffi, as a user would:
#   * docs/check_examples.py: the documents show the files byte for byte;
#   * C and C++ examples are compiled with the package's flags
#     (tvm-ffi-config / PYTHON -m tvmffi.config --cxxflags --ldflags --libs
#     --libdir), the CMake example with
#     -Dtvm_ffi_ROOT="$(PYTHON -m tvmffi.config --cmakedir)", and run;
#   * Python examples run with PYTHON;
#   * the CUDA example is compiled and run only where nvcc exists (otherwise
#     SKIP); its GPU part runs only where torch sees a GPU.
# The example folders are copied into BUILD_DIR/docs-examples (replaced on each
# run) and everything is built and run there; nothing is written elsewhere.
# Commands: `python`, `tvm-ffi-config` and `tvmffi` (as the examples write them)
# are PYTHON and the console scripts beside it (a venv's bin/), or stand-ins
# that run PYTHON -m tvmffi.config / tvmffi._cli when PYTHON has none beside it.
#
# Prints one PASS/FAIL/SKIP line per example, then
#   docs examples: N passed, N failed, N skipped
# and exits non-zero if any failed.
#
# Usage: .ci/docs-examples.sh PYTHON BUILD_DIR
#   PYTHON     a Python with tvmffi installed (e.g. a venv's bin/python)
#   BUILD_DIR  a scratch folder (created if missing)
# Env: TVMFFI_DOCS_TIMEOUT  seconds per example (default 300)
set -uo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: $0 PYTHON BUILD_DIR" >&2
  exit 2
fi
repo=$(cd "$(dirname "$0")/.." && pwd)
py=$1
if [[ $py != */* ]]; then
  py=$(command -v "$py") || { echo "docs-examples: no such command: $1" >&2; exit 2; }
fi
# Absolute, without resolving symbolic links (a venv's python is one).
py=$(cd "$(dirname "$py")" && pwd)/$(basename "$py")
[[ -x $py ]] || { echo "docs-examples: $1 is not executable" >&2; exit 2; }
mkdir -p "$2" || exit 2
work=$(cd "$2" && pwd)/docs-examples
timeout_s=${TVMFFI_DOCS_TIMEOUT:-300}

rm -rf "$work"
mkdir -p "$work/bin" "$work/logs"
cp -R "$repo/docs/examples/." "$work/"

# ------------------------------------------------------------- commands ---
pybin=$(dirname "$py")
printf '#!/bin/sh\nexec "%s" "$@"\n' "$py" >"$work/bin/python"
if [[ -x $pybin/tvm-ffi-config ]]; then
  ln -s "$pybin/tvm-ffi-config" "$work/bin/tvm-ffi-config"
else
  printf '#!/bin/sh\nexec "%s" -m tvmffi.config "$@"\n' "$py" >"$work/bin/tvm-ffi-config"
fi
if [[ -x $pybin/tvmffi ]]; then
  ln -s "$pybin/tvmffi" "$work/bin/tvmffi"
else
  printf '#!/bin/sh\nexec "%s" -c "import sys; from tvmffi._cli import main; sys.exit(main())" "$@"\n' \
    "$py" >"$work/bin/tvmffi"
fi
chmod +x "$work/bin/"*
nvcc=
if [[ -x /usr/local/cuda/bin/nvcc ]]; then
  nvcc=/usr/local/cuda/bin/nvcc
elif command -v nvcc >/dev/null 2>&1; then
  nvcc=$(command -v nvcc)
fi
export PATH="$work/bin${nvcc:+:$(dirname "$nvcc")}:$PATH"

echo "docs-examples: python $py ($("$py" -c 'import tvmffi; print(tvmffi.__version__)' 2>&1))"
echo "docs-examples: tvm-ffi-config --libdir: $(tvm-ffi-config --libdir 2>&1)"
echo "docs-examples: working in $work"

# The flags of the quick start's build_host.sh, for the examples without a
# build script: run-cxx-example / run-c-example SOURCE ARGS... compile SOURCE
# into ./<name> and run it with ARGS.
cat >"$work/bin/run-cxx-example" <<'EOF_CXX'
#!/usr/bin/env bash
set -e
src=$1 && shift
# shellcheck disable=SC2046
g++ -O2 -Wall -Wextra "$src" $(tvm-ffi-config --cxxflags --ldflags --libs) \
  -Wl,-rpath,"$(tvm-ffi-config --libdir)" -o "./${src%.*}"
exec "./${src%.*}" "$@"
EOF_CXX
cat >"$work/bin/run-c-example" <<'EOF_C'
#!/usr/bin/env bash
set -e
src=$1 && shift
# shellcheck disable=SC2046
gcc -std=c11 -O2 -Wall -Wextra "$src" $(tvm-ffi-config --cflags --ldflags --libs) \
  -Wl,-rpath,"$(tvm-ffi-config --libdir)" -o "./${src%.*}"
exec "./${src%.*}" "$@"
EOF_C
chmod +x "$work/bin/"*

# ---------------------------------------------------------------- steps ---
passed=0 failed=0 skipped=0
fails=()
covered=()

# step LABEL DIR EXPECT CMD...: run CMD in $work/DIR; PASS when it exits 0 and
# its output contains EXPECT (a fixed string; empty: anything).
step() {
  local label=$1 dir=$2 expect=$3 log
  shift 3
  log="$work/logs/$(echo "$label" | tr -c 'A-Za-z0-9._-' '_').log"
  if (cd "$work/$dir" && timeout "$timeout_s" "$@") >"$log" 2>&1 &&
     { [[ -z $expect ]] || grep -qF -- "$expect" "$log"; }; then
    passed=$((passed + 1))
    echo "PASS: $label"
  else
    failed=$((failed + 1))
    fails+=("$label")
    echo "FAIL: $label"
    [[ -z $expect ]] || grep -qF -- "$expect" "$log" || echo "  (expected in the output: $expect)"
    sed 's/^/  | /' "$log" | tail -n 40
  fi
}

# example "FILES" DIR EXPECT CMD...: a step that compiles or runs FILES (paths
# under docs/examples/).
example() {
  # shellcheck disable=SC2206
  covered+=($1)
  step "$@"
}

skip() {  # skip "FILES" REASON
  # shellcheck disable=SC2206
  covered+=($1)
  skipped=$((skipped + 1))
  echo "SKIP: $1 ($2)"
}

mykernels=../kernel/build/libmykernels.so

step "docs/check_examples.py (the documents show these files)" . "match docs/examples/" \
  "$py" "$repo/docs/check_examples.py"

# README quick starts
example "quickstart/add_one.cc quickstart/build.sh" quickstart "" \
  bash -c 'set -e; bash build.sh; test -f libadd_one.so'
example "quickstart/call.py" quickstart "[1. 2. 3. 4.]" python call.py
example "quickstart/host.cc quickstart/build_host.sh" quickstart "y = 2 3 4 5" bash build_host.sh
example "quickstart/codegen.c quickstart/build_codegen.sh" quickstart "y = 2 3 4" \
  bash build_codegen.sh

# Kernel libraries, Python, the CLI
example "kernel/mykernels.cc kernel/CMakeLists.txt kernel/build.sh" kernel "" \
  bash -c 'set -e; bash build.sh; test -f build/libmykernels.so'
example "kernel/use_mykernels.py" kernel "Hello, tvmffi!" python use_mykernels.py
# The metadata JSON shown in kernel-libraries.md is what the library returns.
example "kernel/sum_metadata.json" kernel "metadata matches" python -c '
import json, tvmffi
mod = tvmffi.load_module("build/libmykernels.so")
raw = tvmffi.get_global_func("ffi.ModuleGetFunctionMetadata")(mod, "sum", False)
with open("sum_metadata.json") as f:
    shown = json.load(f)
assert json.dumps(json.loads(raw)) == json.dumps(shown), raw  # keys in the same order too
print("metadata matches")'
example "kernel/cli.sh" kernel "f32[[2.5, 5], [7.5, 10]]" bash cli.sh
example "python/values.py" python "Shape((2, 3)) float32 cpu:0" python values.py
example "python/enums.py" python "['relu', 'add', 'noop'] 2" python enums.py
example "python/gen_abi_cpp.py" python "42" python gen_abi_cpp.py

# C and C++ hosts
example "host/module_api.cc" host "z: 4 elements, z[3] = 1.5" run-cxx-example module_api.cc "$mykernels"
example "host/globals.cc" host "example.add(40, 2) = 42" run-cxx-example globals.cc
example "host/c_host.c" host "y = 2 4 6" run-c-example c_host.c "$mykernels"

# The C ABI for code generators
example "codegen/c_kernel.c codegen/build.sh" codegen "" \
  bash -c 'set -e; bash build.sh; test -f libc_kernel.so'
example "codegen/use_c_kernel.py" codegen "[ 0. 10. 20.]" python use_c_kernel.py "$mykernels"

# Errors; reflection, containers and serialization; streams and allocators
example "errors/errors.cc" errors "NotImplementedError: not yet" run-cxx-example errors.cc
example "errors/errors.py" errors "custom kinds cross too" python errors.py "$mykernels"
example "reflection/objects.cc" reflection "round trip equal: 1, shared: 1" run-cxx-example objects.cc
example "reflection/object_def.cc" reflection "example.Pair(a=5, b=7, scratch=0)" \
  run-cxx-example object_def.cc
example "reflection/containers.cc" reflection "a: 2, b: 1" run-cxx-example containers.cc
example "reflection/json.cc" reflection "op relu, rows 2" run-cxx-example json.cc
example "env/streams.cc" env "allocated 6 floats" run-cxx-example streams.cc

# CUDA
if [[ -z $nvcc ]]; then
  skip "cuda/scale.cu cuda/build.sh" "no nvcc"
  skip "cuda/use_cuda_scale.py" "no nvcc"
  skip "cuda/cubin_launcher.py" "no nvcc"
else
  example "cuda/scale.cu cuda/build.sh" cuda "" \
    bash -c 'set -e; bash build.sh; test -f libcuda_scale.so'
  # The GPU half of the script runs where torch sees a GPU.
  example "cuda/use_cuda_scale.py" cuda "ValueError" python use_cuda_scale.py
  # Builds everywhere (nvcc, binutils); launches where torch sees a GPU.
  example "cuda/cubin_launcher.py" cuda "built: " \
    env TVM_FFI_CACHE_DIR="$work/cache" python cubin_launcher.py
fi
# The same library from jax.jit: where JAX sees a GPU.
if [[ -n $nvcc ]] && "$py" -c 'import jax, jax.ffi; assert jax.devices("gpu")' >/dev/null 2>&1; then
  example "cuda/use_from_jax.py" cuda "jit: True" python use_from_jax.py
else
  skip "cuda/use_from_jax.py" "no nvcc, or no JAX with a GPU"
fi

# torch.compile and JAX (docs/torch.md): where torch >= 2.4 / JAX are; .ci/torch.sh has both.
example "torch/rowops.cc torch/build.sh" torch "" bash -c 'set -e; bash build.sh; test -f librowops.so'
if "$py" -c 'import sys, torch; sys.exit(0 if hasattr(torch.library, "register_fake") else 1)' \
    >/dev/null 2>&1; then
  example "torch/compile_model.py" torch "graph breaks: 0" python compile_model.py
  example "torch/dynamic_shapes.py" torch "compiles: 1" python dynamic_shapes.py
else
  skip "torch/compile_model.py" "no torch >= 2.4 here (.ci/torch.sh runs it)"
  skip "torch/dynamic_shapes.py" "no torch >= 2.4 here (.ci/torch.sh runs it)"
fi
if "$py" -c 'import jax, jax.ffi' >/dev/null 2>&1; then
  example "torch/jax_call.py" torch "jit: True" python jax_call.py
else
  skip "torch/jax_call.py" "no JAX here (.ci/torch.sh runs it)"
fi

# Every example file is run by some step.
while IFS= read -r f; do
  found=0
  for c in "${covered[@]}"; do [[ $c == "$f" ]] && found=1 && break; done
  if [[ $found -eq 0 ]]; then
    failed=$((failed + 1))
    fails+=("$f")
    echo "FAIL: $f (no step of .ci/docs-examples.sh runs it)"
  fi
done < <(cd "$repo/docs/examples" && find . -type f ! -path '*/__pycache__/*' | sed 's|^\./||' | sort)

[[ ${#fails[@]} -eq 0 ]] || printf 'docs examples FAILED: %s\n' "${fails[@]}"
echo "docs examples: $passed passed, $failed failed, $skipped skipped"
[[ $failed -eq 0 ]]
