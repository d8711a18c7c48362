// Tests of TVM_FFI_DLL_EXPORT_TYPED_FUNC: a shared library built with it is
// dlopen'ed and its __tvm_ffi_<name> symbols are called with raw TVMFFIAny.
#include <tvm/ffi/function.h>

#include <catch2/catch_test_macros.hpp>

#include <dlfcn.h>

#include <string>

#include "runtime_test_util.h"

namespace {
using namespace tvm::ffi;

void* Library() {
  static void* lib = dlopen(TVMFFI_TEST_EXPORT_LIB, RTLD_NOW | RTLD_LOCAL);
  return lib;
}

TVMFFISafeCallType Symbol(const char* name) {
  void* sym = dlsym(Library(), name);
  return reinterpret_cast<TVMFFISafeCallType>(sym);
}

using rt_test::Bool;
using rt_test::Float;
using rt_test::Int;
using rt_test::TensorPtr;

Error TakeRaised() {
  TVMFFIObjectHandle handle = nullptr;
  TVMFFIErrorMoveFromRaised(&handle);
  REQUIRE(handle != nullptr);
  return detail::ObjectUnsafe::ObjectRefFromObjectPtr<Error>(
      detail::ObjectUnsafe::ObjectPtrFromOwned<Object>(static_cast<TVMFFIObject*>(handle)));
}
}  // namespace

TEST_CASE("Exported symbols exist; internals stay hidden", "[export]") {
  REQUIRE(Library() != nullptr);
  REQUIRE(Symbol("__tvm_ffi_add") != nullptr);
  REQUIRE(Symbol("__tvm_ffi_greet") != nullptr);
  REQUIRE(Symbol("__tvm_ffi_fail") != nullptr);
  REQUIRE(Symbol("__tvm_ffi_scale_sum") != nullptr);
  REQUIRE(Symbol("__tvm_ffi_missing") == nullptr);
}

TEST_CASE("Calling an exported function with TVMFFIAny arguments", "[export]") {
  TVMFFISafeCallType add = Symbol("__tvm_ffi_add");
  REQUIRE(add != nullptr);
  TVMFFIAny args[3] = {Int(40), Int(2), Int(0)};
  TVMFFIAny result;
  result.type_index = kTVMFFINone;
  REQUIRE(add(nullptr, args, 2, &result) == 0);
  REQUIRE(result.type_index == kTVMFFIInt);
  REQUIRE(result.v_int64 == 42);

  // Wrong count.
  result.type_index = kTVMFFINone;
  REQUIRE(add(nullptr, args, 3, &result) == -1);
  Error count = TakeRaised();
  REQUIRE(count.kind() == "TypeError");
  REQUIRE(count.message() ==
          "Mismatched number of arguments when calling: `add(0: int, 1: int) -> int`. "
          "Expected 2 but got 3 arguments");

  // Wrong type.
  args[1].type_index = kTVMFFIRawStr;
  args[1].v_c_str = "two";
  REQUIRE(add(nullptr, args, 2, &result) == -1);
  Error type = TakeRaised();
  REQUIRE(type.kind() == "TypeError");
  REQUIRE(type.message() ==
          "Mismatched type on argument #1 when calling: `add(0: int, 1: int) -> int`. "
          "Expected `int` but got `str`");
}

TEST_CASE("Exported functions: strings, errors, lambdas, and InvokeExternC", "[export]") {
  TVMFFISafeCallType greet = Symbol("__tvm_ffi_greet");
  REQUIRE(Function::InvokeExternC(nullptr, greet, "bob", 2).cast<String>() == "hi bob;hi bob;");
  TVMFFISafeCallType fail = Symbol("__tvm_ffi_fail");
  try {
    Function::InvokeExternC(nullptr, fail, "now");
    FAIL("expected an error");
  } catch (const Error& err) {
    REQUIRE(err.kind() == "ValueError");
    REQUIRE(err.message() == "asked to fail: now");
  }
  TVMFFISafeCallType scale_sum = Symbol("__tvm_ffi_scale_sum");
  REQUIRE(Function::InvokeExternC(nullptr, scale_sum, 1.0, 2).cast<double>() == 8.0);
  // Wrapped as a Function (through TVMFFIFunctionCreate, a C function).
  Function f = Function::FromExternC(nullptr, Symbol("__tvm_ffi_add"), nullptr);
  REQUIRE(f(1, 2).cast<int>() == 3);
}

TEST_CASE("Exported functions: converted arguments, their errors and the kernel's", "[export]") {
  int64_t shape[3] = {2, 3, 4};
  float data[24] = {};
  DLTensor t = rt_test::HostF32Tensor(data, shape, 3);
  DLTensor u = t;
  u.ndim = 1;
  TVMFFISafeCallType scale_views = Symbol("__tvm_ffi_scale_views");
  REQUIRE(scale_views != nullptr);
  TVMFFIAny result;
  result.type_index = kTVMFFINone;
  result.zero_padding = 0;
  result.v_int64 = 0;

  // Strict arguments, then an int for the double (converted, then called once).
  TVMFFIAny args[3] = {TensorPtr(&t), TensorPtr(&u), Float(0.5)};
  REQUIRE(scale_views(nullptr, args, 3, &result) == 0);
  REQUIRE(result.type_index == kTVMFFIFloat);
  REQUIRE(result.v_float64 == 2.0);
  result.type_index = kTVMFFINone;
  args[2] = Int(3);
  REQUIRE(scale_views(nullptr, args, 3, &result) == 0);
  REQUIRE(result.type_index == kTVMFFIFloat);
  REQUIRE(result.v_float64 == 12.0);
  result.type_index = kTVMFFINone;
  args[2] = Bool(true);
  REQUIRE(scale_views(nullptr, args, 3, &result) == 0);
  REQUIRE(result.v_float64 == 4.0);

  // A view's argument never converts; the first bad argument is the one named.
  result.type_index = kTVMFFINone;
  args[1] = Int(1);
  args[2] = Int(3);
  REQUIRE(scale_views(nullptr, args, 3, &result) == -1);
  Error view = TakeRaised();
  REQUIRE(view.kind() == "TypeError");
  REQUIRE(view.message().rfind("Mismatched type on argument #1 when calling: `scale_views(", 0) ==
          0);
  REQUIRE(result.type_index == kTVMFFINone);
  args[1] = TensorPtr(nullptr);
  REQUIRE(scale_views(nullptr, args, 3, &result) == -1);
  REQUIRE(TakeRaised().message().rfind("Mismatched type on argument #1", 0) == 0);
  args[1] = TensorPtr(&u);
  args[2].type_index = kTVMFFIRawStr;
  args[2].v_c_str = "three";
  REQUIRE(scale_views(nullptr, args, 3, &result) == -1);
  Error scalar = TakeRaised();
  REQUIRE(scalar.kind() == "TypeError");
  REQUIRE(scalar.message().rfind("Mismatched type on argument #2 when calling: `scale_views(", 0) ==
          0);

  // An optional view: None or a NULL DLTensor* is empty; the double converts.
  TVMFFISafeCallType optional_scale = Symbol("__tvm_ffi_optional_scale");
  REQUIRE(optional_scale != nullptr);
  TVMFFIAny opt_args[2] = {TensorPtr(nullptr), Int(2)};
  result.type_index = kTVMFFINone;
  REQUIRE(optional_scale(nullptr, opt_args, 2, &result) == 0);
  REQUIRE(result.v_float64 == -2.0);
  opt_args[0] = TensorPtr(&t);
  REQUIRE(optional_scale(nullptr, opt_args, 2, &result) == 0);
  REQUIRE(result.v_float64 == 6.0);
  opt_args[0] = Int(1);
  result.type_index = kTVMFFINone;
  REQUIRE(optional_scale(nullptr, opt_args, 2, &result) == -1);
  REQUIRE(TakeRaised().message().rfind("Mismatched type on argument #0", 0) == 0);

  // The kernel's own error, after a conversion, is raised once with its kind.
  TVMFFISafeCallType fail_at = Symbol("__tvm_ffi_fail_at");
  TVMFFIAny two = Int(2);
  REQUIRE(fail_at(nullptr, &two, 1, &result) == -1);
  Error failed = TakeRaised();
  REQUIRE(failed.kind() == "ValueError");
  REQUIRE(failed.message() == "failed at 2");
  TVMFFIObjectHandle none = nullptr;
  TVMFFIErrorMoveFromRaised(&none);
  REQUIRE(none == nullptr);
  REQUIRE(result.type_index == kTVMFFINone);
}
