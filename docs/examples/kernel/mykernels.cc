// mykernels: a small CPU kernel library, in the style the kernel chapter describes.
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/string.h>

namespace ffi = tvm::ffi;

namespace {

// Argument checks: the error kind says what was wrong, the message names the argument.
void CheckInput(const char* name, ffi::TensorView t) {
  TVM_FFI_CHECK(t.device().device_type == kDLCPU, ValueError)
      << "`" << name << "` must be a CPU tensor, not on " << t.device();
  TVM_FFI_CHECK(t.is_contiguous(), ValueError) << "`" << name << "` must be contiguous";
  TVM_FFI_CHECK(t.dtype() == ffi::dl_float32, TypeError)
      << "`" << name << "` must be float32, not " << t.dtype();
}

void CheckSameShape(ffi::TensorView a, ffi::TensorView b) {
  TVM_FFI_CHECK(a.shape() == b.shape(), ValueError)
      << "shapes differ: " << a.shape() << " and " << b.shape();
}

// out = in * factor, into an output the caller allocated.
void Scale(ffi::TensorView out, ffi::TensorView in, double factor) {
  CheckInput("out", out);
  CheckInput("in", in);
  CheckSameShape(out, in);
  const float* x = static_cast<const float*>(in.data_ptr());
  float* y = static_cast<float*>(out.data_ptr());
  for (int64_t i = 0; i < in.numel(); ++i) y[i] = static_cast<float>(x[i] * factor);
}

// out = a + b; b is optional (None from Python): then out = a.
void Add(ffi::TensorView out, ffi::TensorView a, ffi::Optional<ffi::TensorView> b) {
  CheckInput("out", out);
  CheckInput("a", a);
  CheckSameShape(out, a);
  if (b.has_value()) {
    CheckInput("b", *b);
    CheckSameShape(a, *b);
  }
  const float* pa = static_cast<const float*>(a.data_ptr());
  const float* pb = b.has_value() ? static_cast<const float*>(b->data_ptr()) : nullptr;
  float* po = static_cast<float*>(out.data_ptr());
  for (int64_t i = 0; i < a.numel(); ++i) po[i] = pb != nullptr ? pa[i] + pb[i] : pa[i];
}

// A new tensor, allocated by the caller's allocator: numpy in, numpy out; torch in, torch out.
ffi::Tensor ScaleAlloc(ffi::TensorView in, double factor) {
  CheckInput("in", in);
  ffi::Tensor out =
      ffi::Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, in.shape(), in.dtype(), in.device());
  Scale(out, in, factor);
  return out;
}

// Scalars and strings convert too.
double Sum(ffi::TensorView x) {
  CheckInput("x", x);
  double s = 0;
  for (int64_t i = 0; i < x.numel(); ++i) s += static_cast<const float*>(x.data_ptr())[i];
  return s;
}

ffi::String Greet(ffi::String name) {
  TVM_FFI_CHECK(!name.empty(), ValueError) << "`name` must not be empty";
  return "Hello, " + name + "!";
}

}  // namespace

// One C symbol per function, __tvm_ffi_<name>, plus its signature as metadata.
TVM_FFI_DLL_EXPORT_TYPED_FUNC(scale, Scale);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(add, Add);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(scale_alloc, ScaleAlloc);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(sum, Sum);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(greet, Greet);
// Optional doc strings (tvmffi inspect, Module::GetFunctionDoc, get_function_doc).
TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC(scale, "out = in * factor (float32, CPU)");
TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC(add, "out = a + b; b may be None (then out = a)");
TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC(scale_alloc, "in * factor, allocated by the caller's framework");
// The arguments each function writes (tvmffi extension): read-only arrays may be
// passed to the others without a copy, and are refused for these.
TVM_FFI_DLL_EXPORT_WRITES(scale, 0);
TVM_FFI_DLL_EXPORT_WRITES(add, 0);
TVM_FFI_DLL_EXPORT_WRITES_NOTHING(scale_alloc);
TVM_FFI_DLL_EXPORT_WRITES_NOTHING(sum);
TVM_FFI_DLL_EXPORT_WRITES_NOTHING(greet);
