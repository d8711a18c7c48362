/*
 * Libraries whose `__tvm_ffi__library_ctx` cannot take the pointer the loader
 * stores there (issue #25): built once per TVMFFI_BAD_CTX variant. The loader
 * must refuse each with an error naming the library, writing nothing.
 *   1: const data (.rodata): the store would crash
 *   2: one byte: the store would overwrite `neighbour`
 *   3: a function: the store would overwrite code
 *   4: a const pointer with a relocation (.data.rel.ro, read-only after RELRO)
 */
#include <tvm/ffi/c_api.h>

#include <stdint.h>

#if TVMFFI_BAD_CTX == 1
TVM_FFI_DLL_EXPORT void* const __tvm_ffi__library_ctx = 0;
#elif TVMFFI_BAD_CTX == 2
TVM_FFI_DLL_EXPORT char __tvm_ffi__library_ctx = 0;
TVM_FFI_DLL_EXPORT char neighbour[8] = {1, 2, 3, 4, 5, 6, 7, 8};
#elif TVMFFI_BAD_CTX == 3
TVM_FFI_DLL_EXPORT void __tvm_ffi__library_ctx(void) {}
#elif TVMFFI_BAD_CTX == 4
static int anchor;
TVM_FFI_DLL_EXPORT void* const __tvm_ffi__library_ctx = &anchor;
#endif

TVM_FFI_DLL_EXPORT int __tvm_ffi_bad_ctx_probe(void* self, const TVMFFIAny* args, int32_t num_args,
                                               TVMFFIAny* result) {
  (void)self;
  (void)args;
  (void)num_args;
  result->type_index = kTVMFFIInt;
  result->zero_padding = 0;
  result->v_int64 = TVMFFI_BAD_CTX;
  return 0;
}
