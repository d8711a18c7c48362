// FFI entry points of the elementwise kernels: add_one, scale, axpy, add and
// scale_alloc. Each follows the same anatomy: validate (device, same device,
// dtype, shape, contiguity), dtype dispatch, then inside the dispatched arm:
// device guard, stream from the environment, launch, launch-error check.
// Dispatching before the guard reports an unsupported dtype before any CUDA
// call, and n == 0 returns without touching the device.
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/extra/cuda/utils.h>
#include <tvm/ffi/extra/shape_function.h>
#include <tvm/ffi/function.h>

#include "elementwise.cuh"
#include "entry.h"

namespace tvmffi_kernels {
namespace {

using tvm::ffi::CUDADeviceGuard;
using tvm::ffi::GetCUDAStream;
using tvm::ffi::Tensor;
using tvm::ffi::TensorView;

/*! \brief out = in + 1 (every numeric dtype: float32/16, bfloat16, float64, ints). */
void AddOne(TensorView out, TensorView in) {
  CheckElementwiseArgs<2>({out, in}, {"out", "in"});
  const int64_t n = out.numel();
  const DLDevice dev = out.device();
  TVM_FFI_DISPATCH_NUMERIC_TYPES(out.dtype(), "add_one", T, {
    if (n == 0) return;
    CUDADeviceGuard guard(dev.device_id);
    cudaStream_t stream = GetCUDAStream(dev);
    TVM_FFI_CHECK_CUDA_ERROR(LaunchElementwise<T, 1>(DataPtr<T>(out),
                                                     Inputs<T, 1>{{DataPtr<const T>(in)}}, n,
                                                     AddOneOp<T>{}, dev.device_id, stream));
  });
}

/*! \brief Launch scale on already validated tensors (shared by scale and scale_alloc). */
void LaunchScaleChecked(const TensorView& out, const TensorView& in, double factor,
                        const char* op) {
  const int64_t n = out.numel();
  const DLDevice dev = out.device();
  TVM_FFI_DISPATCH_FLOAT_TYPES(out.dtype(), op, T, {
    if (n == 0) return;
    CUDADeviceGuard guard(dev.device_id);
    cudaStream_t stream = GetCUDAStream(dev);
    TVM_FFI_CHECK_CUDA_ERROR(
        LaunchElementwise<T, 1>(DataPtr<T>(out), Inputs<T, 1>{{DataPtr<const T>(in)}}, n,
                                ScaleOp<T>{static_cast<Acc<T>>(factor)}, dev.device_id, stream));
  });
}

/*! \brief out = in * factor (float32, float16, bfloat16; computed in fp32). */
void Scale(TensorView out, TensorView in, double factor) {
  CheckElementwiseArgs<2>({out, in}, {"out", "in"});
  LaunchScaleChecked(out, in, factor, "scale");
}

/*! \brief out = alpha * x + y (float32, float16, bfloat16; computed in fp32). */
void Axpy(TensorView out, TensorView x, TensorView y, double alpha) {
  CheckElementwiseArgs<3>({out, x, y}, {"out", "x", "y"});
  const int64_t n = out.numel();
  const DLDevice dev = out.device();
  TVM_FFI_DISPATCH_FLOAT_TYPES(out.dtype(), "axpy", T, {
    if (n == 0) return;
    CUDADeviceGuard guard(dev.device_id);
    cudaStream_t stream = GetCUDAStream(dev);
    TVM_FFI_CHECK_CUDA_ERROR(LaunchElementwise<T, 2>(
        DataPtr<T>(out), Inputs<T, 2>{{DataPtr<const T>(x), DataPtr<const T>(y)}}, n,
        AxpyOp<T>{static_cast<Acc<T>>(alpha)}, dev.device_id, stream));
  });
}

/*! \brief out = a + b (float32, float16, bfloat16; computed in fp32). */
void Add(TensorView out, TensorView a, TensorView b) {
  CheckElementwiseArgs<3>({out, a, b}, {"out", "a", "b"});
  const int64_t n = out.numel();
  const DLDevice dev = out.device();
  TVM_FFI_DISPATCH_FLOAT_TYPES(out.dtype(), "add", T, {
    if (n == 0) return;
    CUDADeviceGuard guard(dev.device_id);
    cudaStream_t stream = GetCUDAStream(dev);
    TVM_FFI_CHECK_CUDA_ERROR(LaunchElementwise<T, 2>(
        DataPtr<T>(out), Inputs<T, 2>{{DataPtr<const T>(a), DataPtr<const T>(b)}}, n, AddOp<T>{},
        dev.device_id, stream));
  });
}

/*!
 * \brief Return x * factor in a new tensor from the host's allocator
 *        (TVMFFIEnvTensorAlloc): the library never allocates device memory itself.
 */
Tensor ScaleAlloc(TensorView x, double factor) {
  tvm::ffi::CheckCUDA(x, "x");
  tvm::ffi::CheckContiguous(x, "x");
  // Reject unsupported dtypes before asking the host for memory.
  TVM_FFI_DISPATCH_FLOAT_TYPES(x.dtype(), "scale_alloc", T, {});
  // The allocator places the tensor on prototype.device (x's), whatever the current device.
  Tensor out = Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, x.shape(), x.dtype(), x.device());
  LaunchScaleChecked(out, x, factor, "scale_alloc");
  return out;
}

/*! \brief scale_alloc's shape function: like x, after the checks made before allocating. */
tvm::ffi::TensorSpec ScaleAllocShape(TensorView x, double /*factor*/) {
  tvm::ffi::CheckCUDA(x, "x");
  tvm::ffi::CheckContiguous(x, "x");
  TVM_FFI_DISPATCH_FLOAT_TYPES(x.dtype(), "scale_alloc", T, {});
  return tvm::ffi::TensorSpec::Like(x);
}

/*! \brief The output scale fills, for hosts that allocate it (None for `out`). */
tvm::ffi::TensorSpec ScaleShape(tvm::ffi::Optional<TensorView> /*out*/, TensorView in,
                                double factor) {
  return ScaleAllocShape(in, factor);
}

}  // namespace
}  // namespace tvmffi_kernels

TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_one, tvmffi_kernels::AddOne);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(scale, tvmffi_kernels::Scale);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(axpy, tvmffi_kernels::Axpy);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(add, tvmffi_kernels::Add);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(scale_alloc, tvmffi_kernels::ScaleAlloc);
// Each writes `out` (argument 0) only; scale_alloc writes none of its arguments.
TVM_FFI_DLL_EXPORT_WRITES(add_one, 0);
TVM_FFI_DLL_EXPORT_WRITES(scale, 0);
TVM_FFI_DLL_EXPORT_WRITES(axpy, 0);
TVM_FFI_DLL_EXPORT_WRITES(add, 0);
TVM_FFI_DLL_EXPORT_WRITES_NOTHING(scale_alloc);
// The result's shape, dtype and device without running it (fake tensors, JAX).
TVM_FFI_DLL_EXPORT_SHAPE(scale_alloc, tvmffi_kernels::ScaleAllocShape);
TVM_FFI_DLL_EXPORT_SHAPE(scale, tvmffi_kernels::ScaleShape);

/*!
 * \brief Plain C launcher of the float32 scale kernel, without the FFI layer.
 *
 * For benchmarks that compare an FFI call of `scale` with a direct launch of
 * the same kernel: no validation, no device guard, the caller's stream;
 * `device_id` must be the current device.
 * \return The launch's cudaError_t.
 */
extern "C" __attribute__((visibility("default"))) int tvmffi_kernels_scale_f32_launch(
    float* out, const float* in, float factor, int64_t n, int device_id, cudaStream_t stream) {
  using namespace tvmffi_kernels;
  return static_cast<int>(LaunchElementwise<float, 1>(out, Inputs<float, 1>{{in}}, n,
                                                      ScaleOp<float>{factor}, device_id, stream));
}

/*!
 * \brief Turn programmatic dependent launch of every kernel of the library on
 *        or off (on by default, or as TVMFFI_KERNELS_PDL=0 set it), for
 *        benchmarks that time both in one process; thread-safe, takes effect
 *        at the next launch.
 * \return Whether it was on before.
 */
extern "C" __attribute__((visibility("default"))) int tvmffi_kernels_set_programmatic_launch(
    int enable) {
  return tvmffi_kernels::ProgrammaticLaunchEnabled().exchange(enable != 0) ? 1 : 0;
}
