// A kernel library with one function, add_one: y = x + 1.
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/function.h>

namespace ffi = tvm::ffi;

void AddOne(ffi::TensorView x, ffi::TensorView y) {
  TVM_FFI_CHECK(x.dtype() == ffi::dl_float32, TypeError) << "x must be float32, not " << x.dtype();
  TVM_FFI_CHECK(x.device().device_type == kDLCPU && x.is_contiguous(), ValueError)
      << "x must be a contiguous CPU tensor";
  TVM_FFI_CHECK(y.shape() == x.shape() && y.dtype() == x.dtype() && y.is_contiguous() &&
                    y.device().device_type == kDLCPU,
                ValueError)
      << "y must be like x";
  const float* in = static_cast<const float*>(x.data_ptr());
  float* out = static_cast<float*>(y.data_ptr());
  for (int64_t i = 0; i < x.numel(); ++i) out[i] = in[i] + 1;
}

// Exports the C symbol __tvm_ffi_add_one (and the signature, as metadata).
TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_one, AddOne);
// It writes argument 1 (y) only: a read-only x is read in place, never copied.
TVM_FFI_DLL_EXPORT_WRITES(add_one, 1);
