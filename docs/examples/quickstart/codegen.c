/* What a code generator emits to call add_one of a kernel library directly. */
#include <stdio.h>
#include <tvm/ffi/c_api.h>

/* add_one's safe-call symbol: every TVM-FFI function has this signature. */
int __tvm_ffi_add_one(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result);

int main(void) {
  float xs[3] = {1, 2, 3}, ys[3];
  int64_t shape[1] = {3};
  DLTensor x = {xs, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, NULL, 0}, y = x;
  TVMFFIAny args[2] = {{0}}, result = {0};
  y.data = ys;
  args[0].type_index = kTVMFFIDLTensorPtr, args[0].v_ptr = &x;
  args[1].type_index = kTVMFFIDLTensorPtr, args[1].v_ptr = &y;
  result.type_index = kTVMFFINone;                      /* always None before a call */
  if (__tvm_ffi_add_one(NULL, args, 2, &result) != 0) { /* -1: an error was raised */
    TVMFFIObjectHandle err = NULL;
    TVMFFIErrorMoveFromRaised(&err); /* take it from this thread's slot */
    TVMFFIErrorCell* cell = TVMFFIErrorGetCellPtr(err);
    fprintf(stderr, "%.*s: %.*s\n", (int)cell->kind.size, cell->kind.data, (int)cell->message.size,
            cell->message.data);
    TVMFFIObjectDecRef(err);
    return 1;
  }
  printf("y = %g %g %g\n", ys[0], ys[1], ys[2]); /* y = 2 3 4 */
  return 0;
}
