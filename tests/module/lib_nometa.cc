/*
 * Test library built with TVM_FFI_DLL_EXPORT_NO_METADATA: it exports
 * `__tvm_ffi_<name>` symbols only (no `__tvm_ffi__metadata_*`, no docs). It
 * also has a context symbol the host registers with
 * TVMFFIEnvModRegisterContextSymbol before loading it, and a *data* symbol
 * with the function prefix, which the loader must not treat as a function.
 */
#define TVM_FFI_DLL_EXPORT_NO_METADATA
#include <tvm/ffi/function.h>

#include <cstdint>

// Written by the loader with the value registered under this name.
extern "C" {
TVM_FFI_DLL_EXPORT void* __tvmffi_test_context_hook = nullptr;
}
// Data, not a function: GetFunction("not_a_function") must find nothing.
extern "C" {
TVM_FFI_DLL_EXPORT int64_t __tvm_ffi_not_a_function = 7;
}

namespace {
int64_t Twice(int64_t x) {
  return 2 * x;
}
void* ContextHook() {
  return __tvmffi_test_context_hook;
}
}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(twice, Twice);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(context_hook, ContextHook);
TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC(twice, "never exported: metadata is off");
TVM_FFI_DLL_EXPORT_WRITES(twice, 0);  // neither: no `__tvm_ffi__writes_twice`
