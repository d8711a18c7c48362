/*
 * A kernel library built for the other machine of the pair x86-64 / aarch64
 * (tests/runtime/cross.cmake compiles it with that machine's compiler). It needs no
 * header: one TVM-FFI safe-call export is all the loader and `tvmffi inspect`
 * need to see.
 */
int __tvm_ffi_foreign_add(void* self, const void* args, int num_args, void* result);

int __tvm_ffi_foreign_add(void* self, const void* args, int num_args, void* result) {
  (void)self;
  (void)args;
  (void)result;
  return num_args == 2 ? 0 : -1;
}
