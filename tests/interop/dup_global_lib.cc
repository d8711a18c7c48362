/*
 * A library whose static initialiser registers a global that the runtime
 * already has (ffi.String), without override. Loading it must not abort the
 * host: the failure is reported (stderr, ffi.LoadFailures) and the rest of
 * the library still initialises (interop.after_failure).
 */
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/registry.h>
#include <tvm/ffi/string.h>

TVM_FFI_STATIC_INIT_BLOCK() {
  tvm::ffi::reflection::GlobalDef().def("ffi.String",
                                        [](tvm::ffi::String s) { return s + " (impostor)"; });
}

TVM_FFI_STATIC_INIT_BLOCK() {
  tvm::ffi::reflection::GlobalDef().def("interop.after_failure", []() -> int64_t { return 7; });
}
