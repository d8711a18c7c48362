// CPU kernels that torch.compile and jax.jit see through: each export
// says what it writes and, through a shape function, what it returns.
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/extra/shape_function.h>
#include <tvm/ffi/function.h>

namespace ffi = tvm::ffi;

namespace {

constexpr DLDataType kFloat32{kDLFloat, 32, 1};

// The checks a kernel makes on its input; its shape function makes them too,
// so a tracer gets the same error without running anything.
ffi::TensorSpec LikeInput(ffi::TensorView x) {
  TVM_FFI_CHECK(x.device().device_type == kDLCPU, ValueError) << "`x` must be a CPU tensor";
  TVM_FFI_CHECK(x.dtype() == kFloat32, TypeError) << "`x` must be float32, got " << x.dtype();
  TVM_FFI_CHECK(x.is_contiguous(), ValueError) << "`x` must be contiguous";
  return ffi::TensorSpec::Like(x);
}

// out = max(x, 0) * gain: fills an output the caller allocates.
void ScaledRelu(ffi::TensorView out, ffi::TensorView x, double gain) {
  LikeInput(x);
  TVM_FFI_CHECK(out.shape() == x.shape() && out.dtype() == x.dtype(), ValueError)
      << "`out` must be like `x`";
  const float* px = static_cast<const float*>(x.data_ptr());
  float* po = static_cast<float*>(out.data_ptr());
  for (int64_t i = 0; i < x.numel(); ++i) po[i] = (px[i] > 0 ? px[i] : 0.0f) * float(gain);
}

// x + 1 in a new tensor from the host's allocator (torch's, under torch).
ffi::Tensor AddOne(ffi::TensorView x) {
  LikeInput(x);
  ffi::Tensor out =
      ffi::Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, x.shape(), x.dtype(), x.device());
  const float* px = static_cast<const float*>(x.data_ptr());
  float* po = static_cast<float*>(out.data_ptr());
  for (int64_t i = 0; i < x.numel(); ++i) po[i] = px[i] + 1.0f;
  return out;
}

// x stacked on itself: twice the rows. Its shape function says so, and
// torch.compile learns "2 * rows" from it (docs/torch.md, dynamic shapes).
ffi::TensorSpec RepeatRowsShape(ffi::TensorView x) {
  ffi::TensorSpec spec = LikeInput(x);
  TVM_FFI_CHECK(x.ndim() >= 1, ValueError) << "`x` must have rows";
  spec.shape[0] *= 2;
  return spec;
}
ffi::Tensor RepeatRows(ffi::TensorView x) {
  ffi::TensorSpec spec = RepeatRowsShape(x);
  ffi::Tensor out = ffi::Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, ffi::Shape(spec.shape),
                                              x.dtype(), x.device());
  const float* px = static_cast<const float*>(x.data_ptr());
  float* po = static_cast<float*>(out.data_ptr());
  for (int64_t i = 0; i < out.numel(); ++i) po[i] = px[i % x.numel()];
  return out;
}

// Shape functions take the function's parameters; a written output is
// Optional (None when the host allocates it, as JAX does).
ffi::TensorSpec ScaledReluShape(ffi::Optional<ffi::TensorView>, ffi::TensorView x, double) {
  return LikeInput(x);
}
ffi::TensorSpec AddOneShape(ffi::TensorView x) {
  return LikeInput(x);
}

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(scaled_relu, ScaledRelu);
TVM_FFI_DLL_EXPORT_WRITES(scaled_relu, 0);               // torch: mutates_args
TVM_FFI_DLL_EXPORT_SHAPE(scaled_relu, ScaledReluShape);  // JAX: the result spec

TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_one, AddOne);
TVM_FFI_DLL_EXPORT_WRITES_NOTHING(add_one);
TVM_FFI_DLL_EXPORT_SHAPE(add_one, AddOneShape);  // torch: the fake tensor

TVM_FFI_DLL_EXPORT_TYPED_FUNC(repeat_rows, RepeatRows);
TVM_FFI_DLL_EXPORT_WRITES_NOTHING(repeat_rows);
TVM_FFI_DLL_EXPORT_SHAPE(repeat_rows, RepeatRowsShape);
