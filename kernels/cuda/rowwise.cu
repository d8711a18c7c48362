// FFI entry points of the row-wise kernels: rmsnorm and softmax over the last
// dimension (float32, float16, bfloat16 with fp32 accumulation). Same anatomy
// as elementwise.cu: validate, dispatch, guard, stream, launch, check.
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/cuda/utils.h>
#include <tvm/ffi/function.h>

#include <cstdint>
#include <limits>

#include "entry.h"
#include "rowwise.cuh"

namespace tvmffi_kernels {
namespace {

using tvm::ffi::CUDADeviceGuard;
using tvm::ffi::GetCUDAStream;
using tvm::ffi::TensorView;

/*! \brief [rows, cols] view of a tensor whose last dimension is the row. */
struct RowShape {
  int64_t rows;
  int cols;
};

RowShape RowsOf(const TensorView& x, const char* name) {
  if (x.ndim() < 1) {
    TVM_FFI_THROW(ValueError) << "`" << name << "` must have at least 1 dimension, got a scalar";
  }
  const int64_t cols = x.shape()[x.ndim() - 1];
  if (cols > std::numeric_limits<int>::max()) {
    TVM_FFI_THROW(ValueError) << "`" << name << "` rows of " << cols
                              << " elements are too long (at most 2^31 - 1)";
  }
  return RowShape{cols == 0 ? 0 : x.numel() / cols, static_cast<int>(cols)};
}

/*!
 * \brief out[r, :] = x[r, :] * rsqrt(mean(x[r, :]^2) + eps) * weight.
 * \param weight 1-D, as long as the last dimension of x.
 */
void RMSNorm(TensorView out, TensorView x, TensorView weight, double eps) {
  tvm::ffi::CheckCUDA(out, "out");
  tvm::ffi::CheckCUDA(x, "x");
  tvm::ffi::CheckCUDA(weight, "weight");
  tvm::ffi::CheckSameDevice(x, "x", out, "out");
  tvm::ffi::CheckSameDevice(x, "x", weight, "weight");
  tvm::ffi::CheckSameDType(x, "x", out, "out");
  tvm::ffi::CheckSameDType(x, "x", weight, "weight");
  tvm::ffi::CheckSameShape(x, "x", out, "out");
  const RowShape rs = RowsOf(x, "x");
  tvm::ffi::CheckNDim(weight, "weight", 1);
  if (weight.shape()[0] != rs.cols) {
    TVM_FFI_THROW(ValueError) << "`weight` has " << weight.shape()[0]
                              << " elements but the last dimension of `x` is " << rs.cols;
  }
  tvm::ffi::CheckContiguous(out, "out");
  tvm::ffi::CheckContiguous(x, "x");
  tvm::ffi::CheckContiguous(weight, "weight");
  const DLDevice dev = x.device();
  TVM_FFI_DISPATCH_FLOAT_TYPES(x.dtype(), "rmsnorm", T, {
    if (rs.rows == 0 || rs.cols == 0) return;
    CUDADeviceGuard guard(dev.device_id);
    cudaStream_t stream = GetCUDAStream(dev);
    TVM_FFI_CHECK_CUDA_ERROR(LaunchRMSNorm<T>(DataPtr<T>(out), DataPtr<const T>(x),
                                              DataPtr<const T>(weight), rs.rows, rs.cols,
                                              static_cast<float>(eps), stream));
  });
}

/*! \brief out[r, :] = softmax(x[r, :]), max-subtracted. */
void Softmax(TensorView out, TensorView x) {
  tvm::ffi::CheckCUDA(out, "out");
  tvm::ffi::CheckCUDA(x, "x");
  tvm::ffi::CheckSameDevice(x, "x", out, "out");
  tvm::ffi::CheckSameDType(x, "x", out, "out");
  tvm::ffi::CheckSameShape(x, "x", out, "out");
  const RowShape rs = RowsOf(x, "x");
  tvm::ffi::CheckContiguous(out, "out");
  tvm::ffi::CheckContiguous(x, "x");
  const DLDevice dev = x.device();
  TVM_FFI_DISPATCH_FLOAT_TYPES(x.dtype(), "softmax", T, {
    if (rs.rows == 0 || rs.cols == 0) return;
    CUDADeviceGuard guard(dev.device_id);
    cudaStream_t stream = GetCUDAStream(dev);
    TVM_FFI_CHECK_CUDA_ERROR(
        LaunchSoftmax<T>(DataPtr<T>(out), DataPtr<const T>(x), rs.rows, rs.cols, stream));
  });
}

}  // namespace
}  // namespace tvmffi_kernels

TVM_FFI_DLL_EXPORT_TYPED_FUNC(rmsnorm, tvmffi_kernels::RMSNorm);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(softmax, tvmffi_kernels::Softmax);
