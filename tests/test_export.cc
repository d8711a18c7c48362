// Tests of TVM_FFI_DLL_EXPORT_TYPED_FUNC: a shared library built with it is
// dlopen'ed and its __tvm_ffi_<name> symbols are called with raw TVMFFIAny.
#include <tvm/ffi/function.h>

#include <catch2/catch_test_macros.hpp>

#include <dlfcn.h>

#include <string>

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

TVMFFIAny Int(int64_t v) {
  TVMFFIAny a;
  a.type_index = kTVMFFIInt;
  a.zero_padding = 0;
  a.v_int64 = v;
  return a;
}

Error TakeRaised() {
  TVMFFIObjectHandle handle = nullptr;
  TVMFFIErrorMoveFromRaised(&handle);
  REQUIRE(handle != nullptr);
  return details::ObjectUnsafe::ObjectRefFromObjectPtr<Error>(
      details::ObjectUnsafe::ObjectPtrFromOwned<Object>(static_cast<TVMFFIObject*>(handle)));
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
