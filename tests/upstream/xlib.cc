/*
 * One kernel library source for the interop matrix of .ci/upstream.sh
 * (tests/upstream/interop.sh): it uses only C++ API that our headers and
 * apache/tvm-ffi's share, and is built twice, against our installed package
 * and against upstream's wheel. Each container type crosses both ways: a
 * function reads one the caller made, another makes one for the caller.
 * Modules cross too: XModule is a ModuleObj subclass of this library (its
 * vtable is whichever side's headers it was built with), handed to the host;
 * ProbeModule calls the virtual methods of a module the host's runtime made.
 */
#include <tvm/ffi/big_int.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/module.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include <cstdint>
#include <string>

namespace ffi = tvm::ffi;

namespace {

int64_t AddInt(int64_t a, int64_t b) {
  return a + b;
}

int64_t ArraySum(ffi::Array<int64_t> xs) {
  int64_t s = 0;
  for (int64_t x : xs) s += x;
  return s;
}

ffi::Array<int64_t> MakeArray(int64_t n) {
  ffi::Array<int64_t> out;
  for (int64_t i = 0; i < n; ++i) out.push_back(i * i);
  return out;
}

int64_t MapGet(ffi::Map<ffi::String, int64_t> m, ffi::String key) {
  return m.at(key);
}

ffi::Map<ffi::String, int64_t> MakeMap(int64_t n) {
  ffi::Map<ffi::String, int64_t> out;
  for (int64_t i = 0; i < n; ++i) out.Set("k" + std::to_string(i), i);
  return out;
}

int64_t StrLen(ffi::String s) {
  return static_cast<int64_t>(s.size());
}

// Longer than a small string: an object this library allocates.
ffi::String MakeStr(int64_t n) {
  return ffi::String(std::string(static_cast<size_t>(n), 'x'));
}

// Calls the caller's function; returns one of ours.
int64_t CallFn(ffi::Function f, int64_t x) {
  return f(x).cast<int64_t>() + 1;
}

ffi::Function MakeFn(int64_t k) {
  return ffi::Function::FromTyped([k](int64_t x) { return x * k; });
}

// float32, 1-D: sum of the caller's tensor; y = x + 1 into the caller's output.
double TensorSum(ffi::TensorView x) {
  TVM_FFI_ICHECK(x.ndim() == 1 && x.dtype().code == kDLFloat && x.dtype().bits == 32);
  const float* p = static_cast<const float*>(x.data_ptr());
  double s = 0;
  for (int64_t i = 0; i < x.shape()[0]; ++i) s += p[i];
  return s;
}

void AddOne(ffi::TensorView x, ffi::TensorView y) {
  const float* src = static_cast<const float*>(x.data_ptr());
  float* dst = static_cast<float*>(y.data_ptr());
  for (int64_t i = 0; i < x.shape()[0]; ++i) dst[i] = src[i] + 1.0f;
}

void Raise(ffi::String what) {
  TVM_FFI_THROW(ValueError) << "xlib: " << what;
}

// Calls the caller's function and reports the kind of the error it raised.
ffi::String CatchKind(ffi::Function f) {
  try {
    f();
  } catch (const ffi::Error& e) {
    return e.kind();
  }
  return "";
}

// A BigInt past int64 both ways: the caller's words read inline, a product
// this library allocates (upstream 0.1.15's kTVMFFIBigInt layout).
ffi::BigInt BigIntMul(ffi::BigInt a, ffi::BigInt b) {
  return a * b;
}

// A module of this library's own kind, as TVM's codegen modules are.
class XModule : public ffi::ModuleObj {
 public:
  const char* kind() const override { return "xmod"; }
  ffi::Optional<ffi::Function> GetFunction(const ffi::String& name) override {
    if (name != "twice") return std::nullopt;
    return ffi::Function::FromTyped([](int64_t v) { return 2 * v; });
  }
  ffi::Optional<ffi::String> GetFunctionDoc(const ffi::String& name) override {
    if (name != "twice") return std::nullopt;
    return ffi::String("Twice its argument.");
  }
  ffi::String InspectSource(const ffi::String& format) const override {
    return ffi::String("// xmod source, format=" + std::string(format));
  }
  ffi::Array<ffi::String> GetWriteFormats() const override { return {"cc"}; }
  int GetPropertyMask() const override { return 0b100; }
};

ffi::Module MakeModule() {
  return ffi::Module(ffi::make_object<XModule>());
}

// The host runtime's module seen through this library's ModuleObj vtable:
// "kind|has add_int|calls it|its imports|a missing name".
ffi::String ProbeModule(ffi::Module mod) {
  ffi::Optional<ffi::Function> add = mod->GetFunction(ffi::String("add_int"));
  bool missing = !mod->GetFunction(ffi::String("no_such_function")).has_value();
  return std::string(mod->kind()) + "|" +
         (mod->ImplementsFunction(ffi::String("add_int")) ? "yes" : "no") + "|" +
         std::to_string(add.has_value() ? (*add)(40, 2).cast<int64_t>() : -1) + "|" +
         std::to_string(mod->imports().size()) + "|" + (missing ? "none" : "found");
}

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(make_module, MakeModule);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(probe_module, ProbeModule);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_int, AddInt);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(array_sum, ArraySum);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(make_array, MakeArray);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(map_get, MapGet);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(make_map, MakeMap);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(str_len, StrLen);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(make_str, MakeStr);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(call_fn, CallFn);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(make_fn, MakeFn);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(tensor_sum, TensorSum);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_one, AddOne);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(raise_value_error, Raise);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(catch_kind, CatchKind);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(bigint_mul, BigIntMul);
