/*
 * Test library "B" for test_module: exports the same names as lib_a with
 * different behaviour (`add_int` multiplies, `whoami` is "lib_b"), and
 * `add_int_from_imports`, which calls the `add_int` of an imported module
 * through its `__tvm_ffi__library_ctx` and TVMFFIEnvModLookupFromImports,
 * the way generated code does.
 */
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include <cstdint>

namespace ffi = tvm::ffi;

// Set by the loader to this library's Module.
extern "C" {
TVM_FFI_DLL_EXPORT void* __tvm_ffi__library_ctx = nullptr;
}

namespace {

int64_t AddInt(int64_t a, int64_t b) {
  return a * b;
}

ffi::String WhoAmI() {
  return "lib_b";
}

int64_t AddIntFromImports(int64_t a, int64_t b) {
  // Generated code caches the borrowed handle; the module keeps it alive.
  static TVMFFIObjectHandle cached = nullptr;
  if (cached == nullptr) {
    TVM_FFI_CHECK_SAFE_CALL(
        TVMFFIEnvModLookupFromImports(__tvm_ffi__library_ctx, "add_int", &cached));
  }
  ffi::Function f(ffi::detail::ObjectUnsafe::ObjectPtrFromUnowned<ffi::FunctionObj>(
      static_cast<TVMFFIObject*>(cached)));
  return f(a, b).cast<int64_t>();
}

// The import lookup for any name (errors included), uncached.
ffi::Any LookupFromImports(ffi::String name, int64_t a, int64_t b) {
  TVMFFIObjectHandle h = nullptr;
  TVM_FFI_CHECK_SAFE_CALL(TVMFFIEnvModLookupFromImports(__tvm_ffi__library_ctx, name.c_str(), &h));
  ffi::Function f(ffi::detail::ObjectUnsafe::ObjectPtrFromUnowned<ffi::FunctionObj>(
      static_cast<TVMFFIObject*>(h)));
  return f(a, b);
}

void* LibraryCtx() {
  return __tvm_ffi__library_ctx;
}

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_int, AddInt);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(whoami, WhoAmI);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_int_from_imports, AddIntFromImports);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(lookup_from_imports, LookupFromImports);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(library_ctx, LibraryCtx);
