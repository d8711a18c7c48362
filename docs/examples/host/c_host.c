/* A host in plain C: load a kernel library and call scale(out, in, factor). */
#include <stdio.h>
#include <string.h>
#include <tvm/ffi/c_api.h>

static int print_error(void) { /* take this thread's raised error and print it */
  TVMFFIObjectHandle err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  TVMFFIErrorCell* cell = TVMFFIErrorGetCellPtr(err);
  printf("%.*s: %.*s\n", (int)cell->kind.size, cell->kind.data, (int)cell->message.size,
         cell->message.data);
  TVMFFIObjectDecRef(err);
  return 1;
}

static TVMFFIObjectHandle get_global(const char* name) {
  TVMFFIByteArray bytes = {name, strlen(name)};
  TVMFFIObjectHandle f = NULL; /* stays NULL when nothing has that name */
  TVMFFIFunctionGetGlobal(&bytes, &f);
  return f;
}

int main(int argc, char** argv) {
  TVMFFIObjectHandle load = get_global("ffi.ModuleLoadFromFile");
  TVMFFIObjectHandle get_function = get_global("ffi.ModuleGetFunction");
  TVMFFIAny args[3] = {{0}}, mod = {0}, scale = {0}, res = {0};

  args[0].type_index = kTVMFFIRawStr; /* a borrowed C string */
  args[0].v_c_str = argc > 1 ? argv[1] : "build/libmykernels.so";
  mod.type_index = kTVMFFINone;
  if (TVMFFIFunctionCall(load, args, 1, &mod) != 0) return print_error();

  args[0] = mod; /* borrowed: the caller keeps its reference */
  args[1].type_index = kTVMFFIRawStr, args[1].v_c_str = "scale";
  args[2].type_index = kTVMFFIBool, args[2].v_int64 = 0; /* query_imports */
  scale.type_index = kTVMFFINone;
  if (TVMFFIFunctionCall(get_function, args, 3, &scale) != 0) return print_error();
  if (scale.type_index != kTVMFFIFunction) return printf("no function scale\n"), 1;

  float xs[3] = {1, 2, 3}, ys[3];
  int64_t shape[1] = {3};
  DLTensor x = {xs, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, NULL, 0}, y = x;
  y.data = ys;
  args[0].type_index = kTVMFFIDLTensorPtr, args[0].v_ptr = &y;
  args[1].type_index = kTVMFFIDLTensorPtr, args[1].v_ptr = &x;
  args[2].type_index = kTVMFFIFloat, args[2].v_float64 = 2.0;
  res.type_index = kTVMFFINone;
  if (TVMFFIFunctionCall(scale.v_obj, args, 3, &res) != 0) return print_error();
  printf("y = %g %g %g\n", ys[0], ys[1], ys[2]); /* y = 2 4 6 */

  args[2].type_index = kTVMFFIRawStr, args[2].v_c_str = "two";            /* a wrong argument */
  if (TVMFFIFunctionCall(scale.v_obj, args, 3, &res) != 0) print_error(); /* TypeError: ... */

  TVMFFIObjectDecRef(scale.v_obj); /* release what we own */
  TVMFFIObjectDecRef(mod.v_obj);
  TVMFFIObjectDecRef(get_function);
  TVMFFIObjectDecRef(load);
  return 0;
}
