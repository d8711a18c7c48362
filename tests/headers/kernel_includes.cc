// What a kernel includes, per the kernel library guide; compiled only to its
// preprocessed form by check_includes.cmake, which fails if any header on the
// forbidden list (heavy std headers, container implementations) shows up.
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>
#if defined(TVMFFI_CHECK_CUDA_GUARD)
#include <tvm/ffi/extra/cuda/device_guard.h>
#endif

namespace {
void AddOne(tvm::ffi::TensorView x, tvm::ffi::TensorView y) {
  TVM_FFI_CHECK(x.ndim() == 1, ValueError) << "x must be 1-D";
  TVM_FFI_CHECK(y.ndim() == 1, ValueError) << "y must be 1-D";
}
}  // namespace
TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_one, AddOne);
