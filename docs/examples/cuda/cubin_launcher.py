import subprocess
import tempfile
from pathlib import Path

import torch

import tvmffi.cpp

# Device code, compiled ahead of time (here by nvcc; Triton or NVRTC output works the same).
KERNELS = r"""
extern "C" __global__ void add_one(const float* x, float* y, long long n) {
  long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + 1.0f;
}
"""

# Host code: plain C++, no nvcc. TVM_FFI_EMBED_CUBIN names the binary that
# embed_cubin= puts into the library; it is loaded on first use.
LAUNCHER = r"""
#include <tvm/ffi/extra/cuda/cubin_launcher.h>

TVM_FFI_EMBED_CUBIN(my_kernels);

void add_one(tvm::ffi::TensorView x, tvm::ffi::TensorView y) {
  static auto kernel = TVM_FFI_EMBED_CUBIN_GET_KERNEL(my_kernels, "add_one");
  void* px = x.data_ptr();
  void* py = y.data_ptr();
  long long n = x.numel();
  void* args[] = {&px, &py, &n};  // the addresses of the kernel's arguments
  auto stream = static_cast<tvm::ffi::cuda_api::StreamHandle>(
      TVMFFIEnvGetStream(x.device().device_type, x.device().device_id));
  TVM_FFI_CHECK_CUBIN_LAUNCHER_CUDA_ERROR(kernel.Launch(
      args, tvm::ffi::dim3(static_cast<unsigned>((n + 255) / 256)), tvm::ffi::dim3(256), stream));
}
"""

with tempfile.TemporaryDirectory() as tmp:
    (Path(tmp) / "kernels.cu").write_text(KERNELS)
    # A fatbin: sm_80 code plus PTX that newer GPUs compile when it loads.
    subprocess.run(
        ["nvcc", "--fatbin", "-arch=sm_80", "-o", "kernels.fatbin", "kernels.cu"],
        cwd=tmp,
        check=True,
    )
    fatbin = (Path(tmp) / "kernels.fatbin").read_bytes()

mod = tvmffi.cpp.load_inline(
    "cubin_add_one", cpp_sources=LAUNCHER, functions=["add_one"], embed_cubin={"my_kernels": fatbin}
)
print(f"built: {len(fatbin)} bytes of device code inside the library")

if torch.cuda.is_available():
    x = torch.arange(8, dtype=torch.float32, device="cuda")
    y = torch.empty_like(x)
    mod.add_one(x, y)  # on torch's current stream
    print("on the GPU:", torch.equal(y, x + 1))  # on the GPU: True
