/*
 * Seed for the ELF fuzzers: a tiny shared library with one TVM-FFI export
 * (`__tvm_ffi_seed`) and no dependency on libtvmffi, so that mutations of it
 * reach every part of the loader's pre-check.
 */
#include <stdint.h>

typedef struct {
  int32_t type_index;
  uint32_t zero_padding;
  int64_t v_int64;
} SeedAny;

int __tvm_ffi_seed(void* handle, const SeedAny* args, int32_t num_args, SeedAny* result);

int __tvm_ffi_seed(void* handle, const SeedAny* args, int32_t num_args, SeedAny* result) {
  (void)handle;
  (void)args;
  (void)num_args;
  result->type_index = 1; /* kTVMFFIInt */
  result->zero_padding = 0;
  result->v_int64 = 42;
  return 0;
}
