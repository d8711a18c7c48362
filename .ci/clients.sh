#!/usr/bin/env bash
# The client matrix (issue #40), run by .ci/test.sh after the wheel phase: the
# projects that ship TVM-FFI kernels, built with their own build path against
# the installed tvmffi under the `tvm_ffi` name. Versions: tests/clients/VERSIONS.
# Clients are fetched with `pip download --no-deps` into a cache; nothing of
# them enters the repository.
#   install beside  the stand-in `apache-tvm-ffi` distribution
#                   (python/apache-tvm-ffi) is built; pip's resolver, asked for
#                   `flashinfer-python apache-tvm-ffi==<ours>` with --find-links,
#                   takes tvmffi's three wheels and no upstream wheel (a dry run
#                   with the registry: FlashInfer's full dependency tree holds a
#                   multi-GB CUDA torch); our three wheels install into a fresh
#                   venv with one command and satisfy FlashInfer's requirement.
#   cute dsl        CuTe DSL's TVM-FFI path (tests/clients/cute_dsl_export.py):
#                   compile a small kernel with --enable-tvm-ffi (no GPU),
#                   export_to_c, link, load, call on CPU tensors.
#   tilelang        TileLang's prebuilt compiler (tests/clients/tilelang_compile.py):
#                   an elementwise add lowered for sm_90a with the tvm_ffi
#                   backend, its codegen modules (upstream-layout ModuleObj
#                   subclasses) read through our Module functions, the host
#                   library JIT-built (nvcc) and loaded, the kernel's device
#                   check raised on CPU tensors, the CUDA module embedded in the
#                   library (__tvm_ffi__library_bin) imported. Needs nvcc (else
#                   a SKIP).
#   flashinfer      FlashInfer's JIT (tests/clients/flashinfer_jit.py): its
#                   generators, nvcc flags and ninja build, with tvm_ffi.libinfo's
#                   include paths, for sm_90a; each module loaded with
#                   tvm_ffi.load_module. Needs nvcc: without it each module SKIPs.
#                   Built in a venv of its own at a fixed path in the cache
#                   (DIST's two wheels, reinstalled each run) and a fixed, emptied
#                   workspace, through ccache (tests/clients/nvcc_ccache.sh): a
#                   second run recompiles only what the headers changed.
# Modules left out (CI time on 2 cores, see docs/clients.md): rope, sampling and
# prefill by default (below), the CUTLASS GEMMs (sm100+, minutes each),
# MoE/communication modules.
# One line a check ("PASS ...", "FAIL ...", "SKIP ..."), then
# "clients: N passed, N failed, N skipped"; exits non-zero on a failure.
#
# Usage: .ci/clients.sh PYTHON DIST
#   PYTHON  a venv's python with tvmffi and the drop-in tvm_ffi (python/compat)
#           installed: the wheel phase's (.ci/wheel.sh, TVMFFI_WHEEL_KEEP=1)
#   DIST    the folder holding that venv's tvmffi and tvmffi-as-tvm-ffi wheels
# Env: TVMFFI_CLIENTS_CACHE  downloads and unpacked clients
#                            (default ${TMPDIR:-/tmp}/tvmffi-clients-cache)
#      TVMFFI_CLIENTS_MODULES  FlashInfer modules to build (default below)
#      TVMFFI_CCACHE=0  nvcc without ccache (a cold run's true time)
#      TVMFFI_JOBS  ninja's parallelism (default 2)
#      TVMFFI_CLIENTS_RESOLVE=0  skip the resolver dry run (no registry)
#      TVMFFI_CLIENTS_NVCC  nvcc to use (default: /usr/local/cuda/bin/nvcc, else PATH's);
#                           "none" shows the SKIPs of a machine without one
#      TVMFFI_CLIENTS_OUT  a folder to copy the built modules (*.so) into, for
#                          the GPU run (.ci/prepare-carry.sh, .ci/device-clients.sh)
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
py=${1:?usage: .ci/clients.sh PYTHON DIST}
dist=${2:?usage: .ci/clients.sh PYTHON DIST}
JOBS=${TVMFFI_JOBS:-2}
cache=${TVMFFI_CLIENTS_CACHE:-${TMPDIR:-/tmp}/tvmffi-clients-cache}
# CI builds six (about 7 min of nvcc cold on 2 cores, seconds with ccache warm);
# rope, sampling, prefill-single and prefill-batch build too (about 45 min cold:
# over CI's budget), for the GPU run: TVMFFI_CLIENTS_MODULES="... rope ...".
modules=${TVMFFI_CLIENTS_MODULES:-norm activation-silu activation-gelu_tanh page gemm-bf16-cublaslt decode}
work=$(mktemp -d "${TMPDIR:-/tmp}/tvmffi-clients.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$cache"
# shellcheck source=.ci/lib.sh
source "$repo/.ci/lib.sh"
counted_begin clients
pin() {  # pin NAME: the pinned version of NAME in tests/clients/VERSIONS
  sed -n "s/^$1==\\([^[:space:]]*\\).*/\\1/p" "$repo/tests/clients/VERSIONS"
}

# --------------------------------------------------------------- fetch ---
fi_version=$(pin flashinfer-python)
filelock_version=$(pin filelock)
fi_root=$cache/flashinfer-$fi_version
fetch_flashinfer() {
  [[ -f $fi_root/.unpacked ]] && return 0
  /usr/bin/python3 -m pip download -q --no-deps --only-binary=:all: -d "$cache" \
    "flashinfer-python==$fi_version" &&
    rm -rf "$fi_root" && mkdir -p "$fi_root" &&
    "$py" -m zipfile -e "$cache/flashinfer_python-$fi_version-py3-none-any.whl" "$fi_root" &&
    touch "$fi_root/.unpacked"
}
check "fetch flashinfer-python==$fi_version" fetch_flashinfer
# FlashInfer's JIT imports filelock: into a folder of its own on PYTHONPATH,
# so the wheel phase's venv stays as that phase left it.
pydeps=$cache/pydeps-filelock-$filelock_version
check "fetch filelock==$filelock_version" bash -c '
  [[ -d $1/filelock ]] || "$2" -m pip install -q --no-deps --target "$1" "filelock==$3"
  ' _ "$pydeps" "$py" "$filelock_version"

# ------------------------------------------------------ install beside ---
# The stand-in distribution, built from a copy of the repository's own files
# (setup.py reads c_api.h and tests/clients/VERSIONS beside it), then the one
# command a user runs.
standin_dir=$work/standin
mkdir -p "$standin_dir"
check "build the stand-in apache-tvm-ffi distribution (python/apache-tvm-ffi)" bash -c '
  mkdir -p "$2/src/python" "$2/src/c_api/include/tvm/ffi" "$2/src/tests/clients" &&
  cp -r "$1/python/apache-tvm-ffi" "$2/src/python/" &&
  cp "$1/c_api/include/tvm/ffi/c_api.h" "$2/src/c_api/include/tvm/ffi/" &&
  cp "$1/tests/clients/VERSIONS" "$2/src/tests/clients/" &&
  /usr/bin/python3 -m pip wheel -q --no-build-isolation --no-deps --no-index -w "$2/dist" \
    "$2/src/python/apache-tvm-ffi" >/dev/null &&
  cp "$3"/tvmffi-*.whl "$3"/tvmffi_as_tvm_ffi-*.whl "$2/dist/"' _ "$repo" "$standin_dir" "$dist"
standin=$(find "$standin_dir/dist" -name 'apache_tvm_ffi-*.whl' -print -quit 2>/dev/null)
standin_version=$(basename "${standin:-x-none-}" | cut -d- -f2)
echo "stand-in: apache-tvm-ffi $standin_version"
if [[ ${TVMFFI_CLIENTS_RESOLVE:-1} == 0 ]]; then
  count "SKIP: pip resolves flashinfer-python onto tvmffi (TVMFFI_CLIENTS_RESOLVE=0)"
else
  # A pip that reads the registry's metadata files (PEP 658), so the dry run
  # downloads no wheel; Debian's pip 23.0 would fetch torch to read its metadata.
  resolve() {
    local pipvenv=$cache/pip-venv
    if [[ $("$pipvenv/bin/pip" --version 2>/dev/null) != "pip 25.3 "* ]]; then
      /usr/bin/python3 -m venv "$pipvenv" && "$pipvenv/bin/pip" install -q pip==25.3 || return 1
    fi
    "$pipvenv/bin/pip" install -q --dry-run --ignore-installed --only-binary=:all: \
      --report "$work/report.json" --find-links "$standin_dir/dist" \
      "flashinfer-python==$fi_version" "apache-tvm-ffi==$standin_version" || return 1
    /usr/bin/python3 - "$work/report.json" <<'EOF'
import json
import sys

report = json.load(open(sys.argv[1]))
got = {i["metadata"]["name"].lower(): i["download_info"]["url"] for i in report["install"]}
for name in ("apache-tvm-ffi", "tvmffi", "tvmffi-as-tvm-ffi"):
    url = got.get(name, "")
    print(f"  {name}: {url}")
    if not url.startswith("file:"):
        sys.exit(f"{name} does not come from tvmffi's wheels")
print(f"  {len(got)} distributions resolved, flashinfer-python among them: {'flashinfer-python' in got}")
sys.exit(0 if "flashinfer-python" in got else 1)
EOF
  }
  check "pip resolves flashinfer-python==$fi_version onto tvmffi (dry run, registry)" resolve
fi
beside() {  # the one command, in a fresh venv; then FlashInfer's requirement holds
  local v=$work/beside-venv
  /usr/bin/python3 -m venv --system-site-packages "$v" &&
    "$v/bin/pip" install -q --no-index --find-links "$standin_dir/dist" \
      "apache-tvm-ffi==$standin_version" || return 1
  "$v/bin/pip" install -q --no-deps --no-index \
    "$cache/flashinfer_python-$fi_version-py3-none-any.whl" || return 1
  "$v/bin/python" - <<'EOF'
import importlib.metadata as md
import sys

from packaging.requirements import Requirement

import tvm_ffi
import tvmffi

assert tvm_ffi is tvmffi, tvm_ffi
assert tvm_ffi.__file__.startswith(sys.prefix), tvm_ffi.__file__
have = md.version("apache-tvm-ffi")
for text in md.requires("flashinfer-python"):
    req = Requirement(text)
    if req.name == "apache-tvm-ffi" and req.marker is None:
        assert req.specifier.contains(have, prereleases=True), (text, have)
        print(f"  flashinfer-python requires {text}; installed apache-tvm-ffi {have}")
print(f"  import tvm_ffi -> {tvm_ffi.__name__} {tvm_ffi.__version__}")
EOF
}
check "install beside: one pip command, FlashInfer's requirement met, tvm_ffi is tvmffi" beside

# ------------------------------------------------------------ cute dsl ---
# CuTe DSL (tests/clients/cute_dsl_export.py): a small kernel compiled with
# --enable-tvm-ffi for sm_90a by CuTe DSL's own compiler (no GPU, no nvcc),
# exported with export_to_c, linked, loaded and called on CPU tensors.
cute_pkgs=()
for p in nvidia-cutlass-dsl nvidia-cutlass-dsl-libs-base nvidia-cutlass-dsl-libs-core \
         nvidia-cutlass-dsl-libs-cu13 cuda-bindings cuda-pathfinder protobuf typing_extensions; do
  cute_pkgs+=("$p==$(pin "$p")")
done
cute_site=$cache/cute-site-$(pin nvidia-cutlass-dsl)
fetch_cute() {
  [[ -f $cute_site/.installed ]] && return 0
  rm -rf "$cute_site" &&
    "$py" -m pip install -q --no-deps --only-binary=:all: --target "$cute_site" "${cute_pkgs[@]}" &&
    touch "$cute_site/.installed"
}
check "fetch nvidia-cutlass-dsl==$(pin nvidia-cutlass-dsl) (+ cu13 libs, cuda-bindings)" fetch_cute
if [[ -f $cute_site/.installed ]]; then
  # The package's .pth adds dsl_packages to sys.path; a --target folder on
  # PYTHONPATH reads no .pth, so it is named here.
  CUTE_DSL_ARCH=sm_90a PYTHONPATH=$cute_site:$cute_site/nvidia_cutlass_dsl/dsl_packages \
    nice "$py" "$repo/tests/clients/cute_dsl_export.py" "$work/cute" 2>&1 | tee "$work/cute.log"
  while IFS= read -r line; do tally "$line"; done < <(grep -E '^(PASS|FAIL) cute-dsl ' "$work/cute.log")
  grep -qE '^(PASS|FAIL) cute-dsl the exported' "$work/cute.log" ||
    count "FAIL: cute-dsl: the driver stopped early"
else
  count "SKIP cute-dsl (not fetched)"
fi

NVCC=${TVMFFI_CLIENTS_NVCC:-}
if [[ $NVCC == none ]]; then NVCC=
elif [[ -n $NVCC ]]; then :
elif [[ -x /usr/local/cuda/bin/nvcc ]]; then NVCC=/usr/local/cuda/bin/nvcc
elif command -v nvcc >/dev/null 2>&1; then NVCC=$(command -v nvcc); fi

# ------------------------------------------------------------- tilelang ---
# TileLang 0.1.15 and what it imports (Debian's torch aside), installed
# --no-deps into a folder of the cache: its own metadata asks for
# apache-tvm-ffi<0.1.13, which the stand-in rightly does not satisfy.
tl_pkgs=()
for p in tilelang z3-solver ml-dtypes cloudpickle tqdm; do tl_pkgs+=("$p==$(pin "$p")"); done
tl_site=$cache/tilelang-site-$(pin tilelang)
fetch_tilelang() {
  [[ -f $tl_site/.installed ]] && return 0
  rm -rf "$tl_site" &&
    "$py" -m pip install -q --no-deps --only-binary=:all: --target "$tl_site" "${tl_pkgs[@]}" &&
    touch "$tl_site/.installed"
}
check "fetch tilelang==$(pin tilelang) (+ z3-solver, ml-dtypes, cloudpickle, tqdm)" fetch_tilelang
if [[ -z $NVCC ]]; then
  count "SKIP tilelang (no nvcc)"
elif [[ -f $tl_site/.installed ]]; then
  PATH=$(dirname "$NVCC"):$PATH PYTHONPATH=$tl_site \
    nice "$py" "$repo/tests/clients/tilelang_compile.py" 2>&1 | tee "$work/tilelang.log"
  while IFS= read -r line; do tally "$line"; done < <(grep -E '^(PASS|FAIL|SKIP) tilelang ' "$work/tilelang.log")
  grep -qE "^(PASS|FAIL) tilelang the library's embedded" "$work/tilelang.log" ||
    count "FAIL: tilelang: the driver stopped early"
else
  count "SKIP tilelang (not fetched)"
fi

# ----------------------------------------------------------- flashinfer ---
if [[ -z $NVCC ]]; then
  for m in $modules; do count "SKIP flashinfer $m (no nvcc)"; done
  finish
fi
if [[ ! -f $fi_root/.unpacked ]]; then
  for m in $modules; do count "FAIL flashinfer $m (flashinfer-python not fetched)"; done
  finish
fi
echo "flashinfer $fi_version with $NVCC ($("$NVCC" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')), sm_90a, ninja -j$JOBS"
log=$work/flashinfer.log
# Fixed paths (the venv, so tvm_ffi.libinfo's include path; the workspace, so
# FlashInfer's generated sources) make ccache's direct mode hit across runs; the
# workspace is emptied so ninja compiles every module (ccache answers for what
# the headers did not change). TVMFFI_CCACHE=0: no launcher.
fi_venv=$cache/flashinfer-venv fi_ws=$cache/flashinfer-ws
launcher=
if [[ ${TVMFFI_CCACHE:-1} != 0 ]] && command -v ccache >/dev/null 2>&1; then
  launcher=$repo/tests/clients/nvcc_ccache.sh
fi
rm -rf "$fi_ws"
fi_py=
if { [[ -x $fi_venv/bin/python ]] || /usr/bin/python3 -m venv --system-site-packages "$fi_venv"; } &&
   "$fi_venv/bin/pip" install -q --no-deps --no-index --force-reinstall \
     "$dist"/tvmffi-*.whl "$dist"/tvmffi_as_tvm_ffi-*.whl; then
  fi_py=$fi_venv/bin/python
else
  for m in $modules; do count "FAIL flashinfer $m (installing DIST's wheels into $fi_venv)"; done
  finish
fi
# shellcheck disable=SC2086  # the module list is meant to split
CUDA_HOME=$(dirname "$(dirname "$NVCC")") FLASHINFER_WORKSPACE_BASE=$fi_ws \
  FLASHINFER_NVCC_LAUNCHER=$launcher FLASHINFER_CXX_LAUNCHER=${launcher:+ccache} \
  CCACHE_STATSLOG=$work/ccache-stats.log \
  FLASHINFER_CUDA_ARCH_LIST=9.0 MAX_JOBS=$JOBS PYTHONPATH=$pydeps \
  nice "$fi_py" "$repo/tests/clients/flashinfer_jit.py" "$fi_root" $modules 2>&1 | tee "$log"
if [[ -n $launcher && -f $work/ccache-stats.log ]]; then  # this phase's compiles only
  CCACHE_STATSLOG=$work/ccache-stats.log ccache --show-log-stats 2>/dev/null |
    grep -E '^ *(Hits|Misses):' | sed 's/^ */flashinfer: ccache /'
fi
n=0 seen=0
for m in $modules; do n=$((n + 1)); done
while IFS= read -r line; do  # the driver's lines, already shown: tally them
  seen=$((seen + 1))
  tally "$line"
done < <(grep -E '^(PASS|FAIL|SKIP) flashinfer ' "$log")
[[ $seen -eq $n ]] || count "FAIL: flashinfer driver: $seen of $n module lines"
if [[ -n ${TVMFFI_CLIENTS_OUT:-} ]]; then
  mkdir -p "$TVMFFI_CLIENTS_OUT"
  # CuTe DSL's exported kernel goes too, with the runtime library it links
  # (libcute_dsl_runtime.so, ~42 MiB), when that step got so far.
  cute_rt=$cute_site/nvidia_cutlass_dsl/cu13/lib/libcute_dsl_runtime.so
  if [[ -f $work/cute/cute_add.so && -f $cute_rt ]]; then
    cp "$work/cute/cute_add.so" "$cute_rt" "$TVMFFI_CLIENTS_OUT/"
  fi
  find "$fi_ws" -path '*/cached_ops/*' -name '*.so' -exec cp {} "$TVMFFI_CLIENTS_OUT/" \; &&
    echo "clients: modules copied to $TVMFFI_CLIENTS_OUT: $(cd "$TVMFFI_CLIENTS_OUT" && echo ./*.so)"
fi
finish
