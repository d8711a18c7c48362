/*
 * Test library "A" for test_module: exports `add_int` (a + b) and `whoami`
 * ("lib_a"), names that lib_b exports too, plus functions whose results are
 * made by this library's own code: a tensor with this library's deleter
 * (FromNDAlloc), long strings, arrays and a closure. test_module drops the
 * Module and then uses and frees all of them (under ASan in CI).
 */
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/stl.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include <memory>

#include <atomic>
#include <cstdlib>
#include <string>

namespace ffi = tvm::ffi;

namespace {

std::atomic<int64_t> g_live_tensors{0};

// Memory management code that lives in this library.
struct LibAlloc {
  void AllocData(DLTensor* t) {
    t->data = std::malloc(ffi::GetDataSize(*t) + 1);
    g_live_tensors.fetch_add(1);
  }
  void FreeData(DLTensor* t) {
    std::free(t->data);
    g_live_tensors.fetch_sub(1);
  }
};

int64_t AddInt(int64_t a, int64_t b) {
  return a + b;
}

ffi::String WhoAmI() {
  return "lib_a";
}

// float32 [0, 1, ..., n-1], freed by LibAlloc::FreeData (code of this library).
ffi::Tensor Iota(int64_t n) {
  TVM_FFI_CHECK(n >= 0, ValueError) << "iota: n must be >= 0, got " << n;
  ffi::Tensor t =
      ffi::Tensor::FromNDAlloc(LibAlloc(), {n}, DLDataType{kDLFloat, 32, 1}, DLDevice{kDLCPU, 0});
  float* p = static_cast<float*>(t.data_ptr());
  for (int64_t i = 0; i < n; ++i) p[i] = static_cast<float>(i);
  return t;
}

int64_t LiveTensors() {
  return g_live_tensors.load();
}

// Long enough to be a heap String object, not a small string.
ffi::String LongString(int64_t n) {
  std::string s = "made by lib_a:";
  for (int64_t i = 0; i < n; ++i) s += " " + std::to_string(i);
  return ffi::String(s);
}

ffi::Array<ffi::String> Names(int64_t n) {
  ffi::Array<ffi::String> out;
  for (int64_t i = 0; i < n; ++i)
    out.push_back(ffi::String("lib_a name number " + std::to_string(i)));
  return out;
}

// A Function whose code and deleter are this library's (a C++ closure).
ffi::Function MakeAdder(int64_t k) {
  auto boxed = std::make_shared<int64_t>(k);
  return ffi::Function::FromTyped([boxed](int64_t x) { return x + *boxed; }, "lib_a.adder");
}

void Fail(ffi::String why) {
  TVM_FFI_THROW(ValueError) << "lib_a refuses: " << why;
}

// Throws an Error of any kind, for the tests that follow a kind across boundaries.
void RaiseKind(const ffi::String& kind, const ffi::String& message) {
  throw ffi::Error(std::string(kind), std::string(message));
}

// Calls back into the host; whatever the host throws passes through this library.
int64_t CallBack(const ffi::Function& f, int64_t x) {
  return f(x).cast<int64_t>() + 1;
}

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_int, AddInt);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(whoami, WhoAmI);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(iota, Iota);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(live_tensors, LiveTensors);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(long_string, LongString);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(names, Names);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(make_adder, MakeAdder);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(fail, Fail);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(raise_kind, RaiseKind);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(call_back, CallBack);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(echo_optional, [](ffi::Optional<int64_t> x, const ffi::String& s) {
  return x.has_value() ? ffi::String(s + std::to_string(*x)) : s;
});
TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC(add_int, "Add two integers (lib_a).\nSecond line.");
// For test_module: a writes declaration on a lambda, listed out of order (read back sorted).
TVM_FFI_DLL_EXPORT_WRITES(echo_optional, 1, 0);
TVM_FFI_DLL_EXPORT_WRITES_NOTHING(whoami);
