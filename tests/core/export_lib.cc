// A tiny "kernel library" for test_export: typed functions exported with
// TVM_FFI_DLL_EXPORT_TYPED_FUNC, loaded by the test with dlopen.
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/function.h>

#include <string>

namespace {
int Add(int a, int b) {
  return a + b;
}

tvm::ffi::String Greet(const tvm::ffi::String& name, int times) {
  std::string out;
  for (int i = 0; i < times; ++i) out += "hi " + std::string(name) + ";";
  return tvm::ffi::String(out);
}

void Fail(const tvm::ffi::String& what) {
  TVM_FFI_THROW(ValueError) << "asked to fail: " << what;
}

// Kernels whose arguments may need converting: the converted arguments enter
// the exported symbol again (each then strict), so the kernel is called from
// one place.
double ScaleViews(tvm::ffi::TensorView a, tvm::ffi::TensorView b, double s) {
  return (a.ndim() + b.ndim()) * s;
}
double OptionalScale(tvm::ffi::Optional<tvm::ffi::TensorView> a, double s) {
  return a.has_value() ? a.value().ndim() * s : -s;
}
void FailAt(double x) {
  TVM_FFI_THROW(ValueError) << "failed at " << x;
}

// Visible only inside the library: the test checks that dlsym cannot see it.
int internal_helper_not_exported(int x) {
  return x;
}
}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(add, Add);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(greet, Greet);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(fail, Fail);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(scale_views, ScaleViews);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(optional_scale, OptionalScale);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(fail_at, FailAt);
// A lambda with a comma outside parentheses in its body.
TVM_FFI_DLL_EXPORT_TYPED_FUNC(scale_sum, [](double x, double y) {
  double a = 2.0, b = 3.0;
  return a * x + b * y + internal_helper_not_exported(0);
});
