"""tvmffi.jax against a native XLA FFI handler, and against the same kernel from PyTorch.

1. Per-call host overhead: a jitted chain of K `scale` calls on a tiny buffer
   (launch-bound) through three XLA FFI handlers: tvmffi.jax's (our handler ->
   the kernel library's `scale` function); a minimal hand-written handler that
   calls the same library entry point (`__tvm_ffi_scale`) with the stream set
   in the environment table, so the same kernel launches the same way; and a
   native handler compiled here with nvcc that launches a scale kernel of its
   own. The first difference is the cost of tvmffi.jax's generality.
2. Kernel time: the library's `scale` on a large buffer, from jax.jit (K calls
   in one jit) and from PyTorch (tvmffi's torch path, CUDA events).

Needs JAX with a GPU, nvcc, torch and the CUDA kernel library
(TVMFFI_CUDA_KERNELS). Prints one line per measurement.
"""

from __future__ import annotations

import ctypes
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

_NATIVE = r"""
#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>
#include "xla/ffi/api/c_api.h"

__global__ void ScaleKernel(float* out, const float* in, float f, int64_t n) {
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = in[i] * f;
}

extern "C" __attribute__((visibility("default"))) XLA_FFI_Error* native_scale(
    XLA_FFI_CallFrame* fr) {
  if (fr->extension_start != 0 && fr->extension_start->type == XLA_FFI_Extension_Metadata) {
    XLA_FFI_Metadata_Extension* e = (XLA_FFI_Metadata_Extension*)fr->extension_start;
    e->metadata->api_version.major_version = XLA_FFI_API_MAJOR;
    e->metadata->api_version.minor_version = XLA_FFI_API_MINOR;
    e->metadata->traits = 0;
    return 0;
  }
  XLA_FFI_Stream_Get_Args s;
  memset(&s, 0, sizeof(s));
  s.struct_size = XLA_FFI_Stream_Get_Args_STRUCT_SIZE;
  s.ctx = fr->ctx;
  if (XLA_FFI_Error* err = fr->api->XLA_FFI_Stream_Get(&s)) return err;
  const XLA_FFI_Buffer* in = (const XLA_FFI_Buffer*)fr->args.args[0];
  const XLA_FFI_Buffer* out = (const XLA_FFI_Buffer*)fr->rets.rets[0];
  const XLA_FFI_Scalar* a = (const XLA_FFI_Scalar*)fr->attrs.attrs[0];
  float f = a->dtype == XLA_FFI_DataType_F64 ? (float)*(const double*)a->value
                                             : *(const float*)a->value;
  int64_t n = 1;
  for (int64_t k = 0; k < in->rank; ++k) n *= in->dims[k];
  if (n == 0) return 0;
  int threads = 256;
  int64_t blocks = (n + threads - 1) / threads;
  if (blocks > 4096) blocks = 4096;
  ScaleKernel<<<(int)blocks, threads, 0, (cudaStream_t)s.stream>>>(
      (float*)out->data, (const float*)in->data, f, n);
  return 0;
}
"""


# The minimal handler for the library's own entry point: what a hand-written
# XLA binding of this one kernel would do (stream into the environment table,
# two DLTensors, the safe call), with none of tvmffi.jax's generality.
_NATIVE_ENTRY = r"""
#include <stdint.h>
#include <string.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>
#include "xla/ffi/api/c_api.h"

static TVMFFISafeCallType g_scale = 0;
extern "C" __attribute__((visibility("default"))) void entry_set(void* f) {
  g_scale = (TVMFFISafeCallType)f;
}

extern "C" __attribute__((visibility("default"))) XLA_FFI_Error* entry_scale(
    XLA_FFI_CallFrame* fr) {
  if (fr->extension_start != 0 && fr->extension_start->type == XLA_FFI_Extension_Metadata) {
    XLA_FFI_Metadata_Extension* e = (XLA_FFI_Metadata_Extension*)fr->extension_start;
    e->metadata->api_version.major_version = XLA_FFI_API_MAJOR;
    e->metadata->api_version.minor_version = XLA_FFI_API_MINOR;
    e->metadata->traits = 0;
    return 0;
  }
  XLA_FFI_DeviceOrdinal_Get_Args o;
  memset(&o, 0, sizeof(o));
  o.struct_size = XLA_FFI_DeviceOrdinal_Get_Args_STRUCT_SIZE;
  o.ctx = fr->ctx;
  if (XLA_FFI_Error* err = fr->api->XLA_FFI_DeviceOrdinal_Get(&o)) return err;
  XLA_FFI_Stream_Get_Args s;
  memset(&s, 0, sizeof(s));
  s.struct_size = XLA_FFI_Stream_Get_Args_STRUCT_SIZE;
  s.ctx = fr->ctx;
  if (XLA_FFI_Error* err = fr->api->XLA_FFI_Stream_Get(&s)) return err;
  const XLA_FFI_Buffer* in = (const XLA_FFI_Buffer*)fr->args.args[0];
  const XLA_FFI_Buffer* out = (const XLA_FFI_Buffer*)fr->rets.rets[0];
  const XLA_FFI_Scalar* a = (const XLA_FFI_Scalar*)fr->attrs.attrs[0];
  DLDevice dev = {kDLCUDA, o.device_ordinal};
  DLTensor t[2];
  const XLA_FFI_Buffer* bufs[2] = {out, in};
  for (int k = 0; k < 2; ++k) {
    t[k].data = bufs[k]->data;
    t[k].device = dev;
    t[k].ndim = (int32_t)bufs[k]->rank;
    t[k].dtype = DLDataType{kDLFloat, 32, 1};
    t[k].shape = bufs[k]->dims;
    t[k].strides = 0;
    t[k].byte_offset = 0;
  }
  TVMFFIAny args[3];
  for (int k = 0; k < 2; ++k) {
    args[k].type_index = kTVMFFIDLTensorPtr;
    args[k].zero_padding = 0;
    args[k].v_ptr = &t[k];
  }
  args[2].type_index = kTVMFFIFloat;
  args[2].zero_padding = 0;
  args[2].v_float64 = a->dtype == XLA_FFI_DataType_F64 ? *(const double*)a->value
                                                       : *(const float*)a->value;
  TVMFFIStreamHandle prev = 0;
  TVMFFIEnvSetStream(kDLCUDA, dev.device_id, s.stream, &prev);
  TVMFFIAny ret;
  ret.type_index = kTVMFFINone;
  ret.zero_padding = 0;
  ret.v_int64 = 0;
  int rc = g_scale(0, args, 3, &ret);
  TVMFFIEnvSetStream(kDLCUDA, dev.device_id, prev, 0);
  if (rc != 0) {
    XLA_FFI_Error_Create_Args e;
    memset(&e, 0, sizeof(e));
    e.struct_size = XLA_FFI_Error_Create_Args_STRUCT_SIZE;
    e.message = "scale failed";
    e.errc = XLA_FFI_Error_Code_INTERNAL;
    return fr->api->XLA_FFI_Error_Create(&e);
  }
  return 0;
}
"""


def _median_time(fn: Callable[[], Any], reps: int) -> float:
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> int:
    import jax
    import jax.numpy as jnp
    import torch

    import tvmffi
    import tvmffi.jax as tj

    lib_path = os.environ.get("TVMFFI_CUDA_KERNELS")
    if not lib_path:
        print("set TVMFFI_CUDA_KERNELS to libtvmffi_kernels.so", file=sys.stderr)
        return 2
    mod = tvmffi.load_module(lib_path)
    tj.register_ffi_target("bench.scale", mod.scale, platform="CUDA", outputs_first=True)

    work = Path(tempfile.mkdtemp(prefix="bench_jax_"))
    (work / "native.cu").write_text(_NATIVE)
    so = work / "libnative.so"
    subprocess.run(
        [
            "nvcc",
            "-O2",
            "-shared",
            "-Xcompiler",
            "-fPIC",
            "-arch=sm_90",
            f"-I{jax.ffi.include_dir()}",
            str(work / "native.cu"),
            "-o",
            str(so),
        ],
        check=True,
    )
    native = ctypes.CDLL(str(so))
    jax.ffi.register_ffi_target(
        "bench.native_scale", jax.ffi.pycapsule(native.native_scale), platform="CUDA"
    )
    # The library's entry point behind a minimal hand-written handler.
    (work / "entry.cc").write_text(_NATIVE_ENTRY)
    entry_so = work / "libentry.so"
    runtime = Path(tvmffi.libinfo.find_libtvm_ffi())
    subprocess.run(
        [
            "c++",
            "-O2",
            "-shared",
            "-fPIC",
            *[f"-I{p}" for p in tvmffi.libinfo.include_paths()],
            f"-I{jax.ffi.include_dir()}",
            str(work / "entry.cc"),
            "-o",
            str(entry_so),
            f"-L{runtime.parent}",
            "-l:libtvm_ffi.so",
            f"-Wl,-rpath,{runtime.parent}",
        ],
        check=True,
    )
    entry = ctypes.CDLL(str(entry_so))
    kernels = ctypes.CDLL(lib_path)
    entry.entry_set(ctypes.cast(getattr(kernels, "__tvm_ffi_scale"), ctypes.c_void_p))
    jax.ffi.register_ffi_target(
        "bench.entry_scale", jax.ffi.pycapsule(entry.entry_scale), platform="CUDA"
    )

    dev = jax.devices("gpu")[0]
    print(f"device: {dev.device_kind}; jax {jax.__version__}, torch {torch.__version__}")

    def chain(target: str, k: int) -> Callable[[Any], Any]:
        def f(x: Any) -> Any:
            spec = jax.ShapeDtypeStruct(x.shape, x.dtype)
            for _ in range(k):
                x = jax.ffi.ffi_call(target, spec)(x, factor=1.0)
            return x

        return jax.jit(f)

    # 1. Host overhead per call (tiny buffer: launch-bound).
    k = 400
    x = jnp.ones((256,), jnp.float32)
    per_call = {}
    targets = ("bench.native_scale", "bench.entry_scale", "bench.scale")
    for target in targets * 2:  # twice, interleaved: the second round is reported
        f = chain(target, k)
        jax.block_until_ready(f(x))
        for _ in range(5):
            jax.block_until_ready(f(x))
        t = _median_time(lambda: jax.block_until_ready(f(x)), 30)
        per_call[target] = t / k * 1e6
        print(
            f"host: {target:20s} {per_call[target]:.2f} us/call "
            f"(jit of {k} calls on 256 floats, median of 30)"
        )
    print(
        f"host: tvmffi.jax - minimal handler of the same entry = "
        f"{per_call['bench.scale'] - per_call['bench.entry_scale']:+.2f} us/call"
    )
    print(
        f"host: tvmffi.jax - native handler with its own kernel = "
        f"{per_call['bench.scale'] - per_call['bench.native_scale']:+.2f} us/call"
    )

    # 2. Kernel time on a large buffer: from jax.jit vs from PyTorch.
    n = 1 << 26  # 256 MiB of float32 in, 256 MiB out
    k = 50
    xb = jnp.ones((n,), jnp.float32)
    results = {}
    for target in ("bench.scale", "bench.entry_scale", "bench.native_scale"):
        f = chain(target, k)
        jax.block_until_ready(f(xb))
        t = _median_time(lambda: jax.block_until_ready(f(xb)), 10) / k
        results[target] = t
        print(
            f"kernel: jax.jit {target:20s} {t * 1e6:8.1f} us/call {2 * 4 * n / t / 1e9:7.0f} GB/s"
        )
    xt = torch.ones(n, device="cuda")
    yt = torch.empty_like(xt)
    for _ in range(3):
        mod.scale(yt, xt, 1.0)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(10):
        start.record()
        for _ in range(k):
            mod.scale(yt, xt, 1.0)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / 1e3 / k)
    t = statistics.median(times)
    print(
        f"kernel: torch  tvmffi scale          {t * 1e6:8.1f} us/call "
        f"{2 * 4 * n / t / 1e9:7.0f} GB/s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
