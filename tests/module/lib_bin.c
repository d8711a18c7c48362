/*
 * Libraries with an embedded `__tvm_ffi__library_bin`, as TVM's
 * export_library writes one: the library itself ("_lib") imports one
 * serialised module, which the loader rebuilds with the global
 * `ffi.Module.load_from_bytes.<kind>`. Built once per TVMFFI_BIN variant:
 *   1: kind `tvmffi_test_bin`, bytes "payload" (test_module registers it)
 *   2: kind `tvmffi_test_no_loader` (nothing registers it)
 *   3: the size field claims more bytes than the symbol holds
 */
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>

#include <stdint.h>

#define U64(v) (v) & 0xff, ((v) >> 8) & 0xff, 0, 0, 0, 0, 0, 0

#if TVMFFI_BIN == 1
#define KIND_LEN 15
#define KIND 't', 'v', 'm', 'f', 'f', 'i', '_', 't', 'e', 's', 't', '_', 'b', 'i', 'n'
#else
#define KIND_LEN 21
#define KIND                                                                                     \
  't', 'v', 'm', 'f', 'f', 'i', '_', 't', 'e', 's', 't', '_', 'n', 'o', '_', 'l', 'o', 'a', 'd', \
      'e', 'r'
#endif
/* indptr [0, 1, 1], children [1], "_lib", KIND, "payload" */
#define BODY_LEN (32 + 16 + 12 + (8 + KIND_LEN) + 15)
#if TVMFFI_BIN == 3
#define CLAIMED (BODY_LEN + 64)
#else
#define CLAIMED BODY_LEN
#endif

TVM_FFI_DLL_EXPORT const unsigned char __tvm_ffi__library_bin[8 + BODY_LEN] = {
    U64(CLAIMED), U64(3),        U64(0), U64(1), U64(1), U64(1), U64(1), U64(4), '_', 'l', 'i',
    'b',          U64(KIND_LEN), KIND,   U64(7), 'p',    'a',    'y',    'l',    'o', 'a', 'd'};

TVM_FFI_DLL_EXPORT void* __tvm_ffi__library_ctx = 0;

/* bin_call(x): the imported module's `bin_twice(x)`, found as generated code finds it. */
TVM_FFI_DLL_EXPORT int __tvm_ffi_bin_call(void* self, const TVMFFIAny* args, int32_t num_args,
                                          TVMFFIAny* result) {
  TVMFFIObjectHandle fn = 0;
  (void)self;
  if (TVMFFIEnvModLookupFromImports(__tvm_ffi__library_ctx, "bin_twice", &fn) != 0) return -1;
  return TVMFFIFunctionCall(fn, (TVMFFIAny*)args, num_args, result);
}
