/*
 * A kernel library built with our headers and linked with tvmffi::tvmffi, so
 * that it records DT_NEEDED libtvm_ffi.so. test_interop loads it into a
 * process whose TVM-FFI runtime is another one (the stand-in) and checks
 * that everything it does goes to that runtime.
 */
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include <cstdint>
#include <cstdlib>
#include <new>

namespace ffi = tvm::ffi;

namespace {

// The stream the host set for (device_type, device_id), as an opaque pointer.
void* GetStream(int64_t device_type, int64_t device_id) {
  return TVMFFIEnvGetStream(static_cast<int32_t>(device_type), static_cast<int32_t>(device_id));
}

void RaiseValueError(ffi::String what) {
  TVM_FFI_THROW(ValueError) << "kernel says: " << what;
}

// Long enough not to be a small string: an object the library allocates.
ffi::String MakeString(int64_t n) {
  return ffi::String(std::string(static_cast<size_t>(n), 'x'));
}

ffi::Array<int64_t> MakeArray(int64_t n) {
  ffi::Array<int64_t> out;
  for (int64_t i = 0; i < n; ++i) out.push_back(i * i);
  return out;
}

struct CpuAlloc {
  void AllocData(DLTensor* t) {
    size_t bytes = static_cast<size_t>(t->shape[0]) * sizeof(float);
    t->data = std::malloc(bytes > 0 ? bytes : 1);
    if (t->data == nullptr) throw std::bad_alloc();
  }
  void FreeData(DLTensor* t) { std::free(t->data); }
};

// float32 [n] holding 0, 1, ..., n-1.
ffi::Tensor MakeTensor(int64_t n) {
  ffi::Tensor t =
      ffi::Tensor::FromNDAlloc(CpuAlloc(), {n}, DLDataType{kDLFloat, 32, 1}, DLDevice{kDLCPU, 0});
  float* p = static_cast<float*>(t.data_ptr());
  for (int64_t i = 0; i < n; ++i) p[i] = static_cast<float>(i);
  return t;
}

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(get_stream, GetStream);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(raise_value_error, RaiseValueError);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(make_string, MakeString);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(make_array, MakeArray);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(make_tensor, MakeTensor);
