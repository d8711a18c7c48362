#!/usr/bin/env bash
# Run apache/tvm-ffi's quickstart recipes, unchanged, against tvmffi.
#
# usage: tests/upstream_quickstart/run.sh UPSTREAM_TREE [PYTHON]
#
# UPSTREAM_TREE is a checkout (or `git archive` export) of apache/tvm-ffi with
# examples/quickstart (and examples/python_packaging); it is only read: each
# recipe runs in its own copy under a temporary directory. PYTHON (default
# python3) must import tvmffi's `tvm_ffi` (the tvmffi wheel plus
# python/compat installed beside it). The recipes call `python` and
# `tvm-ffi-config`: a `python` that runs PYTHON comes first on PATH, then
# PYTHON's scripts directory (a venv's bin/, where the wheel puts
# tvm-ffi-config).
#
# Prints one line per recipe, PASS / FAIL / SKIP with the reason, and exits
# with status 1 when one FAILs (2 on a usage error). Each recipe's output goes
# to a log; the tail of a failing one is shown. Set KEEP_WORK=1 to keep the
# temporary directory (it is kept anyway when a recipe fails).
set -u

usage() {
  echo "usage: $0 UPSTREAM_TREE [PYTHON]" >&2
  exit 2
}

if [ $# -lt 1 ] || [ $# -gt 2 ]; then usage; fi
upstream=$1
python_arg=${2:-python3}
quickstart=$upstream/examples/quickstart
packaging=$upstream/examples/python_packaging
if [ ! -f "$quickstart/run_all_cpu.sh" ]; then
  echo "error: $quickstart/run_all_cpu.sh not found: UPSTREAM_TREE must be a tree of apache/tvm-ffi" >&2
  exit 2
fi

# The interpreter by its path, symlinks kept (a venv's python is a link).
python=$(command -v "$python_arg") || { echo "error: no Python '$python_arg'" >&2; exit 2; }
case $python in /*) ;; *) python=$(cd "$(dirname "$python")" && pwd)/$(basename "$python") ;; esac

if ! "$python" -c 'import sys, tvm_ffi, tvmffi; sys.exit(0 if tvm_ffi is tvmffi else 1)' 2>/dev/null; then
  echo "error: $python: 'import tvm_ffi' does not give tvmffi (install the tvmffi wheel and python/compat)" >&2
  exit 2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/tvmffi-quickstart.XXXXXX")
mkdir -p "$work/bin" "$work/logs"
failed=0

# shellcheck disable=SC2317  # called by the EXIT trap
finish() {
  if [ "$failed" -ne 0 ] || [ "${KEEP_WORK:-0}" = 1 ]; then
    echo "work directory (logs in logs/): $work"
  else
    rm -rf "$work"
  fi
}
trap finish EXIT

# `python` / `python3` for the recipes (and CMake's FindPython) run PYTHON.
for name in python python3; do
  printf '#!/bin/sh\nexec "%s" "$@"\n' "$python" > "$work/bin/$name"
  chmod +x "$work/bin/$name"
done
scripts=$("$python" -c 'import sysconfig; print(sysconfig.get_path("scripts"))')
venv=$("$python" -c 'import sys; print(sys.prefix if sys.prefix != sys.base_prefix else "")')
export PATH="$work/bin:$scripts:$PATH"
if [ -n "$venv" ]; then export VIRTUAL_ENV=$venv; else unset VIRTUAL_ENV; fi

echo "tvmffi $("$python" -c 'import tvm_ffi; print(tvm_ffi.__version__, "in", tvm_ffi.__file__)')"
if config=$(command -v tvm-ffi-config); then
  echo "tvm-ffi-config: $config"
else
  echo "tvm-ffi-config: not on PATH (not in $scripts)"
fi

result() {  # result STATUS NAME [REASON]
  local line="$1 $2"
  [ $# -ge 3 ] && line="$line ($3)"
  echo "$line"
  [ "$1" = FAIL ] && failed=1
  return 0
}

run_recipe() {  # run_recipe NAME DIR COMMAND...: PASS or FAIL with the log's tail
  local name=$1 dir=$2 log
  shift 2
  log="$work/logs/$(echo "$name" | tr '/ ' '__').log"
  if (cd "$dir" && "$@") > "$log" 2>&1; then
    result PASS "$name"
  else
    result FAIL "$name" "exit $?; log: $log"
    tail -n 25 "$log" | sed 's/^/    | /'
  fi
}

fresh_copy() {  # fresh_copy SRC NAME: a copy of SRC under the work directory, no build/
  rm -rf "${work:?}/$2"
  cp -R "$1" "$work/$2"
  rm -rf "$work/$2/build" "$work/$2/build-wheel"
  echo "$work/$2"
}

# 1. The CMake flow: find_package(tvm_ffi) via `python -m tvm_ffi.config
#    --cmakedir`, the kernel, load_numpy.py and the C++ loader.
cmake_dir=$(fresh_copy "$quickstart" run_all_cpu)
run_recipe run_all_cpu.sh "$cmake_dir" bash ./run_all_cpu.sh

# 2. The compiler flow: g++ (and nvcc, when on PATH) with tvm-ffi-config's flags.
raw_dir=$(fresh_copy "$quickstart" raw_compile)
if command -v tvm-ffi-config > /dev/null; then
  run_recipe raw_compile.sh "$raw_dir" bash ./raw_compile.sh
else
  result SKIP raw_compile.sh "no tvm-ffi-config on PATH"
fi

# 3. Loading from numpy, with the library raw_compile.sh built (else run_all_cpu.sh's).
if ! "$python" -c 'import numpy' 2>/dev/null; then
  result SKIP load/load_numpy.py "numpy is not installed"
elif [ -f "$raw_dir/build/add_one_cpu.so" ]; then
  run_recipe load/load_numpy.py "$raw_dir" python load/load_numpy.py
elif [ -f "$cmake_dir/build/add_one_cpu.so" ]; then
  run_recipe load/load_numpy.py "$cmake_dir" python load/load_numpy.py
else
  result FAIL load/load_numpy.py "no build/add_one_cpu.so: both compile recipes failed"
fi

# 4. Loading from torch on CUDA, with the library raw_compile.sh built by nvcc.
if ! "$python" -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  result SKIP load/load_pytorch.py "torch.cuda is not available"
elif [ ! -f "$raw_dir/build/add_one_cuda.so" ]; then
  result SKIP load/load_pytorch.py "raw_compile.sh built no build/add_one_cuda.so (nvcc not on PATH?)"
else
  run_recipe load/load_pytorch.py "$raw_dir" python load/load_pytorch.py
fi

# 5. python_packaging: a scikit-build-core wheel using tvm_ffi's CMake helpers
#    and Python registration API, installed into a scratch directory.
missing=$("$python" -c '
import tvm_ffi
print(" ".join(n for n in ("init_ffi_api", "register_object") if not hasattr(tvm_ffi, n)))')
if [ ! -f "$packaging/pyproject.toml" ]; then
  result SKIP python_packaging "not in this upstream tree"
elif [ -n "$missing" ]; then
  result SKIP python_packaging "tvm_ffi has no $missing"
elif ! "$python" -c 'import scikit_build_core' 2>/dev/null; then
  result SKIP python_packaging "scikit-build-core is not installed"
else
  pkg_dir=$(fresh_copy "$packaging" python_packaging)
  # shellcheck disable=SC2016  # expanded by the inner sh
  run_recipe python_packaging "$pkg_dir" sh -c '
    python -m pip install --no-build-isolation --no-deps --no-index --target "$1" . &&
    PYTHONPATH="$1${PYTHONPATH:+:$PYTHONPATH}" python run_example.py' sh "$work/site"
fi

exit "$failed"
