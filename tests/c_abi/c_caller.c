/*
 * A host written in plain C11 against the C ABI only:
 *
 *  1. looks up `ffi.ModuleLoadFromFile` and `ffi.ModuleGetFunction` with
 *     TVMFFIFunctionGetGlobal;
 *  2. loads a kernel library and takes a function from it;
 *  3. calls it with borrowed DLTensor* arguments (stack memory, no objects);
 *  4. makes a bad call and prints the raised error's kind and message, read
 *     straight from the TVMFFIErrorCell;
 *  5. shows that a missing function is None and a missing file an error;
 *  6. releases every object it received.
 *
 * Usage: tvmffi_c_caller LIBRARY.so     (a library exporting c_add_one, e.g.
 *        the C callee of tests/c_abi/c_callee.c). Exits non-zero if anything is off.
 */
#include <stdio.h>
#include <string.h>
#include <tvm/ffi/c_api.h>

static TVMFFIAny any_none(void) {
  TVMFFIAny v;
  memset(&v, 0, sizeof(v));
  v.type_index = kTVMFFINone;
  return v;
}

static TVMFFIAny any_str(const char* s) {
  TVMFFIAny v = any_none();
  v.type_index = kTVMFFIRawStr;
  v.v_c_str = s;
  return v;
}

static TVMFFIAny any_int(int64_t x) {
  TVMFFIAny v = any_none();
  v.type_index = kTVMFFIInt;
  v.v_int64 = x;
  return v;
}

static TVMFFIAny any_tensor(DLTensor* t) {
  TVMFFIAny v = any_none();
  v.type_index = kTVMFFIDLTensorPtr;
  v.v_ptr = t;
  return v;
}

/* Take the raised error, print "<what>: <kind>: <message>", release it. */
static void print_raised(const char* what) {
  TVMFFIObjectHandle err = NULL;
  TVMFFIErrorCell* cell;
  TVMFFIErrorMoveFromRaised(&err);
  if (err == NULL) {
    printf("%s: (no error raised)\n", what);
    return;
  }
  cell = TVMFFIErrorGetCellPtr(err);
  printf("%s: %.*s: %.*s\n", what, (int)cell->kind.size, cell->kind.data, (int)cell->message.size,
         cell->message.data);
  TVMFFIObjectDecRef(err);
}

static TVMFFIObjectHandle get_global(const char* name) {
  TVMFFIByteArray n;
  TVMFFIObjectHandle f = NULL;
  n.data = name;
  n.size = strlen(name);
  if (TVMFFIFunctionGetGlobal(&n, &f) != 0) print_raised(name);
  return f;
}

int main(int argc, char** argv) {
  TVMFFIObjectHandle load, get_function, module = NULL, add_one = NULL;
  TVMFFIAny args[3], result;
  float x_data[4] = {1.0f, 2.0f, 3.0f, 4.0f};
  float y_data[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  int64_t shape[1] = {4};
  DLTensor x, y;
  int failures = 0;

  if (argc != 2) {
    fprintf(stderr, "usage: %s LIBRARY.so\n", argv[0]);
    return 2;
  }

  /* 1. The two global functions a C host needs. */
  load = get_global("ffi.ModuleLoadFromFile");
  get_function = get_global("ffi.ModuleGetFunction");
  if (load == NULL || get_function == NULL) return 1;

  /* 2. Load the library: the result is an owned Module object. */
  args[0] = any_str(argv[1]);
  result = any_none();
  if (TVMFFIFunctionCall(load, args, 1, &result) != 0) {
    print_raised("load");
    return 1;
  }
  module = result.v_obj;
  printf("loaded: type_index %d (ffi.Module is %d)\n", (int)result.type_index, (int)kTVMFFIModule);

  /* ffi.ModuleGetFunction(module, name, query_imports) -> Function or None. */
  args[0] = any_none();
  args[0].type_index = kTVMFFIModule;
  args[0].v_obj = (TVMFFIObject*)module;
  args[1] = any_str("c_add_one");
  args[2] = any_none();
  args[2].type_index = kTVMFFIBool;
  args[2].v_int64 = 0;
  result = any_none();
  if (TVMFFIFunctionCall(get_function, args, 3, &result) != 0 ||
      result.type_index != kTVMFFIFunction) {
    print_raised("get c_add_one");
    return 1;
  }
  add_one = result.v_obj;

  /* 3. Call with borrowed DLTensor* arguments describing stack arrays. */
  memset(&x, 0, sizeof(x));
  x.data = x_data;
  x.device.device_type = kDLCPU;
  x.device.device_id = 0;
  x.ndim = 1;
  x.dtype.code = kDLFloat;
  x.dtype.bits = 32;
  x.dtype.lanes = 1;
  x.shape = shape;
  y = x;
  y.data = y_data;
  args[0] = any_tensor(&x);
  args[1] = any_tensor(&y);
  result = any_none();
  if (TVMFFIFunctionCall(add_one, args, 2, &result) != 0) {
    print_raised("c_add_one");
    failures++;
  } else {
    printf("c_add_one(x, y): y = [%g, %g, %g, %g]\n", y_data[0], y_data[1], y_data[2], y_data[3]);
    if (y_data[0] != 2.0f || y_data[3] != 5.0f) failures++;
  }

  /* 4. A bad call: an int where a tensor belongs. */
  args[1] = any_int(5);
  result = any_none();
  if (TVMFFIFunctionCall(add_one, args, 2, &result) == 0) {
    printf("c_add_one(x, 5) unexpectedly succeeded\n");
    failures++;
  } else {
    print_raised("c_add_one(x, 5) raised");
  }

  /* 5a. A missing function is None, not an error. */
  args[0] = any_none();
  args[0].type_index = kTVMFFIModule;
  args[0].v_obj = (TVMFFIObject*)module;
  args[1] = any_str("no_such_function");
  args[2] = any_int(0);
  result = any_none();
  if (TVMFFIFunctionCall(get_function, args, 3, &result) != 0) {
    print_raised("get no_such_function");
    failures++;
  } else {
    printf("ffi.ModuleGetFunction(\"no_such_function\") -> %s\n",
           result.type_index == kTVMFFINone ? "None" : "a value?!");
    if (result.type_index != kTVMFFINone) failures++;
    if (result.type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectDecRef(result.v_obj);
  }

  /* 5b. A missing file is an error naming the path. */
  args[0] = any_str("/nonexistent/libnothing.so");
  result = any_none();
  if (TVMFFIFunctionCall(load, args, 1, &result) == 0) {
    printf("loading a missing file unexpectedly succeeded\n");
    failures++;
    if (result.type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectDecRef(result.v_obj);
  } else {
    print_raised("load missing file");
  }

  /* 6. Release everything we own. */
  TVMFFIObjectDecRef(add_one);
  TVMFFIObjectDecRef(module);
  TVMFFIObjectDecRef(get_function);
  TVMFFIObjectDecRef(load);
  printf("%s\n", failures == 0 ? "c_caller: ok" : "c_caller: FAILED");
  return failures == 0 ? 0 : 1;
}
