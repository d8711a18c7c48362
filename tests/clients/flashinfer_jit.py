"""Build FlashInfer JIT modules with FlashInfer's own JIT against the installed tvm_ffi.

Usage: python flashinfer_jit.py FLASHINFER_ROOT MODULE...

FLASHINFER_ROOT is an unpacked flashinfer-python wheel (the folder holding
`flashinfer/`). For each MODULE (a key of MODULES), FlashInfer's generator
makes its JitSpec, and `JitSpec.build()` writes FlashInfer's build.ninja (its
nvcc flags, its include paths, the tvm_ffi ones from `tvm_ffi.libinfo`) and
runs ninja. The module is then loaded with `tvm_ffi.load_module` and every
function it exports must resolve; norm's rmsnorm is called on CPU tensors and
must raise the kernel's own device check as a tvm_ffi error. One line a
module: "PASS flashinfer <module> ..." or "FAIL flashinfer <module> ...".
Exits with the number of failures (2 on a setup error).

What of FlashInfer's path this skips, and why:
- `flashinfer/__init__.py`: it imports the whole library, which needs a
  CUDA build of a recent torch; the `flashinfer` package object is made
  here with its real folder as `__path__`, so `flashinfer.jit` and every
  generator module are FlashInfer's own files, imported normally.
- The generators key tables by torch dtypes. On a torch without the
  float8/uint32 dtypes (Debian's 1.13 CPU build) those names are set to
  placeholder objects: they are only dictionary keys here; no tensor of
  them is made. Everything else of torch the JIT path touches is real.

Env (set by .ci/clients.sh): FLASHINFER_WORKSPACE_BASE, FLASHINFER_CUDA_ARCH_LIST,
MAX_JOBS.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import time
import traceback
import types


def _install_flashinfer_package(root: str) -> None:
    pkg = types.ModuleType("flashinfer")
    pkg.__path__ = [os.path.join(root, "flashinfer")]
    pkg.__file__ = os.path.join(root, "flashinfer", "__init__.py")
    sys.modules["flashinfer"] = pkg


def _torch_dtype_names() -> list[str]:
    import torch

    missing = []
    for name in ("float8_e4m3fn", "float8_e5m2", "uint16", "uint32", "uint64"):
        if not hasattr(torch, name):
            setattr(torch, name, type(name, (), {"__repr__": lambda self, n=name: f"torch.{n}"})())
            missing.append(name)
    return missing


def _spec(name: str):
    import torch

    def gen(module: str, func: str, *args):
        return getattr(importlib.import_module(module), func)(*args)

    table = {
        "norm": lambda: gen("flashinfer.jit.norm", "gen_norm_module"),
        "activation-silu": lambda: gen(
            "flashinfer.jit.activation", "gen_act_and_mul_module", "silu"
        ),
        "activation-gelu": lambda: gen(
            "flashinfer.jit.activation", "gen_act_and_mul_module", "gelu"
        ),
        "activation-gelu_tanh": lambda: gen(
            "flashinfer.jit.activation", "gen_act_and_mul_module", "gelu_tanh"
        ),
        "rope": lambda: gen("flashinfer.jit.rope", "gen_rope_module"),
        "page": lambda: gen("flashinfer.jit.page", "gen_page_module"),
        "sampling": lambda: gen("flashinfer.jit.sampling", "gen_sampling_module"),
        "gemm-bf16-cublaslt": lambda: gen(
            "flashinfer.jit.gemm.core", "gen_mm_bf16_cublaslt_module"
        ),
        # Batch decode, fp16 q/kv/out, int32 indices, head dim 128, no RoPE in
        # the kernel, no sliding window, no logits soft cap.
        "decode": lambda: gen(
            "flashinfer.jit.attention.modules",
            "gen_batch_decode_module",
            torch.float16,
            torch.float16,
            torch.float16,
            torch.int32,
            128,
            128,
            0,
            False,
            False,
        ),
        # Prefill attention, FlashAttention-2 backend (sm80+, runs on sm90),
        # fp16 q/kv/out, head dim 128, no RoPE in the kernel, no sliding
        # window, no logits soft cap, fp32 QK reduction: single-request, and
        # batched over a ragged and a paged KV cache (int32 indices).
        "prefill-single": lambda: gen(
            "flashinfer.jit.attention.modules",
            "gen_single_prefill_module",
            "fa2",
            torch.float16,
            torch.float16,
            torch.float16,
            128,
            128,
            0,
            False,
            False,
            False,
        ),
        "prefill-batch": lambda: gen(
            "flashinfer.jit.attention.modules",
            "gen_batch_prefill_module",
            "fa2",
            torch.float16,
            torch.float16,
            torch.float16,
            torch.int32,
            128,
            128,
            0,
            False,
            False,
            False,
        ),
    }
    return table[name]()


def _exported_functions(path: str) -> list[str]:
    out = subprocess.run(
        ["nm", "-D", "--defined-only", path], capture_output=True, text=True, check=True
    ).stdout
    names = []
    for line in out.splitlines():
        symbol = line.split()[-1]
        if symbol.startswith("__tvm_ffi_") and not symbol.startswith("__tvm_ffi__"):
            names.append(symbol[len("__tvm_ffi_") :])
    return sorted(names)


def _check_module(tvm_ffi, name: str, path: str) -> str:
    module = tvm_ffi.load_module(path)
    functions = _exported_functions(path)
    if not functions:
        raise AssertionError(f"{path} exports no TVM-FFI function")
    for fn in functions:
        if not isinstance(getattr(module, fn), tvm_ffi.Function):
            raise AssertionError(f"{fn} of {path} is not a tvm_ffi.Function")
    note = f"{len(functions)} functions load"
    if name == "norm":
        import numpy as np

        x = tvm_ffi.from_dlpack(np.zeros((2, 8), np.float16))
        w = tvm_ffi.from_dlpack(np.zeros((8,), np.float16))
        try:
            module.rmsnorm(x, x, w, 1e-6, False)
        except tvm_ffi.Error:
            note += ", rmsnorm on CPU tensors raises its device check"
        else:
            raise AssertionError("rmsnorm accepted CPU tensors")
    return note


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print(__doc__.splitlines()[2], file=sys.stderr)
        return 2
    root, names = argv[1], argv[2:]
    placeholders = _torch_dtype_names()
    _install_flashinfer_package(root)
    import tvm_ffi
    import tvm_ffi.libinfo

    # The headers FlashInfer compiles against must be tvmffi's, found through
    # the tvm_ffi name (the drop-in), not an upstream wheel's.
    package_dir = os.path.dirname(os.path.realpath(tvm_ffi.__file__))
    include = os.path.realpath(tvm_ffi.libinfo.find_include_path())
    print(f"tvm_ffi: {tvm_ffi.__name__} {tvm_ffi.__version__} from {package_dir}")
    print(f"tvm_ffi.libinfo.find_include_path(): {include}")
    if tvm_ffi.__name__ != "tvmffi" or not include.startswith(package_dir + os.sep):
        print("FAIL flashinfer setup: tvm_ffi is not tvmffi's drop-in")
        return 2
    if placeholders:
        print(f"torch lacks {', '.join(placeholders)}: placeholder dtype keys for the generators")
    import flashinfer.jit  # noqa: F401  (FlashInfer's own JIT package)

    failed = 0
    for name in names:
        start = time.monotonic()
        try:
            spec = _spec(name)
            spec.build(verbose=False)
            seconds = time.monotonic() - start
            note = _check_module(tvm_ffi, name, str(spec.get_library_path()))
            print(f"PASS flashinfer {name} ({spec.name}: built in {seconds:.0f} s, {note})")
        except Exception as err:  # one module's failure must not stop the others
            failed += 1
            text = str(err)
            print(
                f"FAIL flashinfer {name} ({time.monotonic() - start:.0f} s): {type(err).__name__}"
            )
            # ninja's output: the compiler's first errors are what matter.
            errors = [line for line in text.splitlines() if "error" in line.lower()]
            for line in (errors or text.splitlines())[:20]:
                print(f"    {line[:400]}")
            if not text:
                traceback.print_exc()
        sys.stdout.flush()
    return failed


if __name__ == "__main__":
    sys.exit(main(sys.argv))
