// What a file written the way upstream's guide shows includes: the umbrella
// only, then std::cout. check_includes.cmake compiles it to its preprocessed
// form and fails if a header on the umbrella's forbidden list shows up.
#include <tvm/ffi/tvm_ffi.h>

namespace {
void AddOne(tvm::ffi::TensorView x, tvm::ffi::TensorView y) {
  TVM_FFI_CHECK(x.ndim() == 1, ValueError) << "x must be 1-D";
  TVM_FFI_CHECK(y.ndim() == 1, ValueError) << "y must be 1-D";
  std::cout << "add_one " << x.shape()[0] << std::endl;
}
}  // namespace
TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_one, AddOne);
