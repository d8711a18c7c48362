// FFI entry points of the row-wise kernels: rmsnorm and softmax over the last
// dimension (float32, float16, bfloat16 with fp32 accumulation). Same anatomy
// as elementwise.cu: validate, dispatch, guard, stream, launch, check.
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/cuda/utils.h>
#include <tvm/ffi/extra/shape_function.h>
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
                                              static_cast<float>(eps), dev.device_id, stream));
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
    TVM_FFI_CHECK_CUDA_ERROR(LaunchSoftmax<T>(DataPtr<T>(out), DataPtr<const T>(x), rs.rows,
                                              rs.cols, dev.device_id, stream));
  });
}

/*!
 * \brief The output rmsnorm / softmax fill, for hosts that allocate it (JAX
 *        passes None for `out`): like x, after x's own checks.
 */
tvm::ffi::TensorSpec RowOutputLike(TensorView x, const char* name) {
  tvm::ffi::CheckCUDA(x, "x");
  (void)RowsOf(x, "x");
  tvm::ffi::CheckContiguous(x, "x");
  TVM_FFI_DISPATCH_FLOAT_TYPES(x.dtype(), name, T, {});
  return tvm::ffi::TensorSpec::Like(x);
}
tvm::ffi::TensorSpec RMSNormShape(tvm::ffi::Optional<TensorView> /*out*/, TensorView x,
                                  TensorView /*weight*/, double /*eps*/) {
  return RowOutputLike(x, "rmsnorm");
}
tvm::ffi::TensorSpec SoftmaxShape(tvm::ffi::Optional<TensorView> /*out*/, TensorView x) {
  return RowOutputLike(x, "softmax");
}

}  // namespace
}  // namespace tvmffi_kernels

TVM_FFI_DLL_EXPORT_TYPED_FUNC(rmsnorm, tvmffi_kernels::RMSNorm);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(softmax, tvmffi_kernels::Softmax);
TVM_FFI_DLL_EXPORT_WRITES(rmsnorm, 0);  // out only
TVM_FFI_DLL_EXPORT_WRITES(softmax, 0);
TVM_FFI_DLL_EXPORT_SHAPE(rmsnorm, tvmffi_kernels::RMSNormShape);
TVM_FFI_DLL_EXPORT_SHAPE(softmax, tvmffi_kernels::SoftmaxShape);

/*!
 * \brief Geometry and occupancy of the kernel that `rmsnorm` (softmax = 0) or
 *        `softmax` (softmax = 1) runs for a contiguous, 16-byte-aligned
 *        [rows, cols] tensor, on the current device. For tests and benchmarks:
 *        resident threads per SM are what keep a memory-bound kernel's loads
 *        in flight.
 * \param dtype_code, dtype_bits kDLFloat 32, kDLFloat 16 or kDLBfloat 16.
 * \param info Out, int[5]: mode (0 group, 1 block, 2 stream), threads per
 *        block, registers per thread, resident blocks per SM, local-memory
 *        (spill) bytes per thread. Untouched on failure.
 * \return 0; -1 for another dtype or a NULL `info`, rows < 1 or cols < 1;
 *         else the cudaError_t of the attribute queries. Thread-safe.
 */
extern "C" __attribute__((visibility("default"))) int tvmffi_kernels_row_kernel_info(
    int softmax, int dtype_code, int dtype_bits, int64_t rows, int cols, int* info) {
  using namespace tvmffi_kernels;
  if (info == nullptr || rows < 1 || cols < 1) return -1;
  alignas(16) static const char kAligned[16] = {};
  int rc = -1;
  auto query = [&](const RowPlan& p, auto kernel) {
    cudaFuncAttributes a;
    int blocks = 0;
    cudaError_t e = cudaFuncGetAttributes(&a, kernel);
    if (e == cudaSuccess) {
      e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, static_cast<int>(p.block),
                                                        0);
    }
    rc = static_cast<int>(e);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();  // not sticky: keep it from blaming the next launch
      return;
    }
    const int values[5] = {static_cast<int>(p.mode), static_cast<int>(p.block), a.numRegs, blocks,
                           static_cast<int>(a.localSizeBytes)};
    for (int k = 0; k < 5; ++k) info[k] = values[k];
  };
  auto visit = [&](auto tag) {
    using T = decltype(tag);
    if (softmax) {
      WithRowKernel<true, T>(rows, cols, {kAligned}, query);
    } else {
      WithRowKernel<false, T>(rows, cols, {kAligned}, query);
    }
  };
  if (dtype_code == kDLFloat && dtype_bits == 32) {
    visit(float{});
  } else if (dtype_code == kDLFloat && dtype_bits == 16) {
    visit(__half{});
  } else if (dtype_code == kDLBfloat && dtype_bits == 16) {
    visit(__nv_bfloat16{});
  }
  return rc;
}
