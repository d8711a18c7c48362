"""TileLang's TVM-FFI path on tvmffi (run by .ci/clients.sh; no GPU needed).

TileLang's prebuilt compiler (its bundled TVM, built against upstream's
headers) lowers an elementwise add for sm_90a with execution_backend="tvm_ffi";
its codegen modules are C++ ModuleObj subclasses of upstream's layout, read
here through tvmffi's Module functions. TileLang then JIT-builds the host
library (its own export path, with nvcc), loads it with the module loader, and
the kernel, called on CPU tensors, raises its generated device check; the CUDA
module TVM serialised into that library is rebuilt and imported.

One line a check: "PASS tilelang ..." / "FAIL tilelang ..." / "SKIP tilelang ...".
Usage: tilelang_compile.py   (TileLang and its Python dependencies on sys.path)
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import traceback
from collections.abc import Callable
from typing import Any

results: list[tuple[str, str, str]] = []


def check(name: str, fn: Callable[[], Any]) -> Any:
    """Run one check; a falsy result or an exception is a FAIL with the reason."""
    try:
        value = fn()
        ok, why = bool(value), "returned a false value"
    except Exception as e:
        value, ok, why = None, False, f"{type(e).__name__}: {e}".splitlines()[0][:300]
        traceback.print_exc()
    print(f"{'PASS' if ok else 'FAIL'} tilelang {name}{'' if ok else ' (' + why + ')'}", flush=True)
    results.append((name, "PASS" if ok else "FAIL", why))
    return value if ok else None


def main() -> int:
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    if not os.path.exists(nvcc):
        print("SKIP tilelang compile (no nvcc)")
        return 0
    os.environ.setdefault("CUDA_HOME", os.path.dirname(os.path.dirname(nvcc)))
    # A cache of its own, emptied: every run compiles.
    os.environ["TILELANG_CACHE_DIR"] = tempfile.mkdtemp(prefix="tvmffi-tilelang-cache-")
    os.environ["TILELANG_DISABLE_CACHE"] = "1"

    tilelang = check("import (tvm_ffi is tvmffi)", lambda: _import())
    if tilelang is None:
        return 1
    import tilelang.language as T

    n, block = 1024, 256

    @T.prim_func
    def add(
        A: T.Tensor((n,), "float32"),
        B: T.Tensor((n,), "float32"),
        C: T.Tensor((n,), "float32"),
    ) -> None:
        with T.Kernel(T.ceildiv(n, block), threads=block) as bx:
            for i in T.Parallel(block):
                C[bx * block + i] = A[bx * block + i] + B[bx * block + i]

    kernel = check(
        "compile an elementwise add (sm_90a, execution_backend=tvm_ffi)",
        lambda: tilelang.compile(
            add, target={"kind": "cuda", "arch": "sm_90a"}, execution_backend="tvm_ffi"
        ),
    )
    if kernel is None:
        return 1
    mod = kernel.adapter.rt_mod
    check(
        "codegen module (upstream-layout ModuleObj): kind, imports",
        lambda: mod.kind == "c" and [m.kind for m in mod.imports] == ["cuda"],
    )
    check(
        "CUDA source through ffi.ModuleInspectSource",
        lambda: "__global__" in kernel.get_kernel_source(),
    )
    check("host source (C)", lambda: "TVMFFI" in (kernel.adapter.get_host_source() or ""))

    import torch

    def call_on_cpu() -> bool:
        a, b, c = torch.ones(n), torch.ones(n), torch.empty(n)
        try:
            kernel(a, b, c)
        except RuntimeError as e:
            # The kernel's generated argument check (TVM's host code), not ours.
            return "device_type" in str(e)
        return False

    check("JIT-built library loaded; the kernel raises its device check on CPU", call_on_cpu)
    jitted = kernel.adapter._get_executable()._jitted_mod
    check(
        "the JIT-built library is a tvmffi library module exporting main",
        lambda: jitted.kind == "library" and "main" in jitted.list_functions(),
    )
    # TVM's export_library serialised the CUDA module into the library
    # (`__tvm_ffi__library_bin`); the loader rebuilt it with TVM's
    # ffi.Module.load_from_bytes.cuda, so the host code finds its kernel.
    check(
        "the library's embedded CUDA module is imported; add_kernel is reachable",
        lambda: (
            [m.kind for m in jitted.imports] == ["cuda"]
            and jitted.implements_function("add_kernel", query_imports=True)
        ),
    )
    return 0 if all(r[1] == "PASS" for r in results) else 1


def _import() -> Any:
    import tilelang

    import tvm_ffi
    import tvmffi

    assert tvm_ffi is tvmffi, tvm_ffi
    print(f"  tilelang {tilelang.__version__} on {tvmffi.__name__} {tvmffi.__version__}")
    return tilelang


if __name__ == "__main__":
    sys.exit(main())
