// A CUDA kernel library: validate, guard the device, take the caller's stream, dispatch, launch.
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/cuda/utils.h>  // checks, CUDADeviceGuard, GetCUDAStream, dispatch
#include <tvm/ffi/function.h>

#include <algorithm>

namespace ffi = tvm::ffi;

template <typename T>
__global__ void ScaleKernel(T* out, const T* in, float factor, int64_t n) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += stride) {
    out[i] = static_cast<T>(static_cast<float>(in[i]) * factor);
  }
}

void Scale(ffi::TensorView out, ffi::TensorView in, double factor) {
  // 1. Validate: each check names the argument (ValueError, or TypeError for dtypes).
  ffi::CheckCUDA(in, "in");
  ffi::CheckSameDevice(out, "out", in, "in");
  ffi::CheckSameDType(out, "out", in, "in");
  ffi::CheckSameShape(out, "out", in, "in");
  ffi::CheckContiguous(in, "in");
  ffi::CheckContiguous(out, "out");
  // 2. Make the tensors' device current (switches only when needed; restored at exit).
  ffi::CUDADeviceGuard guard(in.device().device_id);
  // 3. Launch on the caller's stream (e.g. torch's current stream), never a stream of our own.
  cudaStream_t stream = ffi::GetCUDAStream(in.device());
  // 4. Dispatch on the dtype (float32, float16, bfloat16) and launch.
  const int64_t n = in.numel();
  if (n == 0) return;
  const unsigned threads = 256;
  const auto blocks = static_cast<unsigned>(std::min<int64_t>((n + threads - 1) / threads, 4096));
  TVM_FFI_DISPATCH_FLOAT_TYPES(in.dtype(), "scale", scalar_t, {
    ScaleKernel<scalar_t><<<blocks, threads, 0, stream>>>(
        static_cast<scalar_t*>(out.data_ptr()), static_cast<const scalar_t*>(in.data_ptr()),
        static_cast<float>(factor), n);
  });
  TVM_FFI_CHECK_CUDA_ERROR(cudaGetLastError());
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(scale, Scale);
TVM_FFI_DLL_EXPORT_WRITES(scale, 0);  // writes `out` only: `in` may be read-only
