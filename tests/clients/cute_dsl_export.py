"""CuTe DSL's TVM-FFI path on the installed tvm_ffi: compile, export, load, call.

Usage: python cute_dsl_export.py OUT_DIR

A small CuTe DSL kernel (c = a + b over n float32 values, n symbolic) is
compiled by `cute.compile(..., options="--enable-tvm-ffi")` for
CUTE_DSL_ARCH (set by .ci/clients.sh: sm_90a), launching on the caller's stream
(TVMFFIEnvGetStream); no GPU is needed to compile.
Then: the JIT function is (or wraps) a `tvm_ffi.Function`; `export_to_c` writes an object
file, linked into OUT_DIR/cute_add.so with CuTe DSL's runtime library; that
library loads with `tvm_ffi.load_module`; both the JIT function and the
loaded one, called with CPU tensors, raise the kernel's own argument check
(ValueError: a CUDA tensor is expected). One line each: "PASS cute-dsl <step>"
or "FAIL cute-dsl <step>: ...". Exits with the failure count.
"""

from __future__ import annotations

import os
import subprocess
import sys

import cuda.bindings.driver as cuda
import cutlass
import cutlass.cute as cute
import numpy as np
from cutlass.cute.export.aot_config import get_lib_paths

import tvm_ffi


@cute.kernel
def add_kernel(a: cute.Tensor, b: cute.Tensor, c: cute.Tensor):
    tidx, _, _ = cute.arch.thread_idx()
    bidx, _, _ = cute.arch.block_idx()
    i = bidx * 128 + tidx
    if i < a.shape[0]:
        c[i] = a[i] + b[i]


@cute.jit
def add(a: cute.Tensor, b: cute.Tensor, c: cute.Tensor, stream: cuda.CUstream):
    n = a.shape[0]
    add_kernel(a, b, c).launch(grid=[(n + 127) // 128, 1, 1], block=[128, 1, 1], stream=stream)


def _raises_device_check(fn) -> bool:
    x = tvm_ffi.from_dlpack(np.zeros((16,), np.float32))
    try:
        fn(x, x, x)
    except ValueError:
        return True
    return False


def main(out: str) -> int:
    print(f"tvm_ffi: {tvm_ffi.__name__} {tvm_ffi.__version__}")
    os.makedirs(out, exist_ok=True)
    failed = 0

    def step(name: str, ok: bool, detail: str = "") -> None:
        nonlocal failed
        failed += not ok
        print(f"{'PASS' if ok else 'FAIL'} cute-dsl {name}{': ' + detail if detail else ''}")
        sys.stdout.flush()

    n = cute.sym_int()
    fake = [cute.runtime.make_fake_compact_tensor(cutlass.Float32, (n,)) for _ in range(3)]
    # The stream is the caller's (TVMFFIEnvGetStream: torch's current stream,
    # a CUDA graph's capture stream), not a parameter.
    env_stream = cute.runtime.make_fake_stream(use_tvm_ffi_env_stream=True)
    jit = cute.compile(add, *fake, env_stream, options="--enable-tvm-ffi")
    # A tvm_ffi.Function, or (keyword-argument support) a wrapper that exposes one.
    as_ffi = jit if isinstance(jit, tvm_ffi.Function) else jit.__tvm_ffi_object__()
    step("compile with --enable-tvm-ffi: a tvm_ffi.Function", isinstance(as_ffi, tvm_ffi.Function))
    step("the JIT function raises its device check on CPU tensors", _raises_device_check(jit))
    obj = os.path.join(out, "cute_add.o")
    lib = os.path.join(out, "cute_add.so")
    jit.export_to_c(obj, function_name="cute_add")
    subprocess.run(
        ["g++", "-shared", "-o", lib, obj, *get_lib_paths(enable_tvm_ffi=False)], check=True
    )
    module = tvm_ffi.load_module(lib)
    step("export_to_c, link, tvm_ffi.load_module", isinstance(module.cute_add, tvm_ffi.Function))
    step("the exported function raises its device check", _raises_device_check(module.cute_add))
    return failed


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
