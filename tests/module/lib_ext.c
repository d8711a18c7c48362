/*
 * A kernel library that needs a tvmffi extension: it registers its own error
 * kind with TVMFFIErrorKindRegister, which the standard TVM-FFI 0.1 symbol
 * set lacks. `tvmffi inspect` must name that import.
 */
#include <tvm/ffi/c_api.h>

#include <string.h>

TVM_FFI_DLL_EXPORT int __tvm_ffi_ext_kind_code(void* self, const TVMFFIAny* args, int32_t num_args,
                                               TVMFFIAny* result) {
  static const char kKind[] = "TestExtensionError";
  TVMFFIByteArray kind;
  int32_t code = 0;
  (void)self;
  (void)args;
  (void)num_args;
  kind.data = kKind;
  kind.size = strlen(kKind);
  if (TVMFFIErrorKindRegister(&kind, &code) != 0) return -1;
  result->type_index = kTVMFFIInt;
  result->zero_padding = 0;
  result->v_int64 = code;
  return 0;
}
