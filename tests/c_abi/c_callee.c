/*
 * A kernel library written in plain C11 the way a compiler would emit it:
 * no C++ and no helper headers, only the C ABI of tvm/ffi/c_api.h.
 *
 *  - Every exported function has the safe-call signature and the name
 *    `__tvm_ffi_<name>`; it checks the type_index of each argument itself.
 *  - Tensors arrive either as a borrowed DLTensor* (kTVMFFIDLTensorPtr) or as
 *    a tensor object (kTVMFFITensor, whose DLTensor sits right after the
 *    24-byte object header).
 *  - Errors are reported with TVMFFIErrorSetRaisedFromCStrParts and -1.
 *  - `__tvm_ffi__library_ctx` is set by the loader to this library's module;
 *    `c_add_int_from_imports` uses it with TVMFFIEnvModLookupFromImports to
 *    call a function of a module imported into this one.
 *
 * Exports: c_add_one(x, y): y = x + 1 (float32, CPU, same shape)
 *          c_sum(x) -> float
 *          c_add_int_from_imports(a, b) -> the imported add_int(a, b)
 *          c_library_ctx() -> the module handle, as an opaque pointer
 */
#include <stdio.h>
#include <string.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>

/* Written by the module loader (TVMFFIEnvModLookupFromImports needs it). */
TVM_FFI_DLL_EXPORT void* __tvm_ffi__library_ctx = NULL;

/* ---- error helpers ------------------------------------------------------ */

static int raise_parts(const char* kind, const char* a, const char* b, const char* c, const char* d,
                       const char* e) {
  const char* parts[5];
  parts[0] = a;
  parts[1] = b;
  parts[2] = c;
  parts[3] = d;
  parts[4] = e;
  TVMFFIErrorSetRaisedFromCStrParts(kind, parts, 5);
  return -1;
}

static const char* type_name(int32_t type_index, char* buf, size_t size) {
  switch (type_index) {
    case kTVMFFINone:
      return "None";
    case kTVMFFIInt:
      return "int";
    case kTVMFFIBool:
      return "bool";
    case kTVMFFIFloat:
      return "float";
    case kTVMFFIRawStr:
    case kTVMFFISmallStr:
    case kTVMFFIStr:
      return "str";
    default:
      snprintf(buf, size, "type index %d", (int)type_index);
      return buf;
  }
}

/* The DLTensor of argument i, or NULL with a TypeError raised. */
static DLTensor* tensor_arg(const TVMFFIAny* args, int32_t i, const char* fn, const char* name) {
  char buf[32], idx[16];
  if (args[i].type_index == kTVMFFIDLTensorPtr) return (DLTensor*)args[i].v_ptr;
  if (args[i].type_index == kTVMFFITensor) return TVMFFITensorGetDLTensorPtr(args[i].v_obj);
  snprintf(idx, sizeof(idx), "%d", (int)i);
  {
    const char* parts[8];
    parts[0] = fn;
    parts[1] = ": argument #";
    parts[2] = idx;
    parts[3] = " (";
    parts[4] = name;
    parts[5] = ") must be a tensor (DLTensor* or ffi.Tensor), got ";
    parts[6] = type_name(args[i].type_index, buf, sizeof(buf));
    parts[7] = NULL; /* NULL parts are skipped */
    TVMFFIErrorSetRaisedFromCStrParts("TypeError", parts, 8);
  }
  return NULL;
}

static int check_float32_cpu(const DLTensor* t, const char* fn, const char* name) {
  if (t->dtype.code != kDLFloat || t->dtype.bits != 32 || t->dtype.lanes != 1) {
    return raise_parts("TypeError", fn, ": `", name, "` must be float32", NULL);
  }
  if (t->device.device_type != kDLCPU) {
    return raise_parts("ValueError", fn, ": `", name, "` must be on the CPU", NULL);
  }
  if (t->strides != NULL) {
    /* Compact row-major strides are fine; anything else is not supported here. */
    int64_t expect = 1;
    int32_t d;
    for (d = t->ndim - 1; d >= 0; --d) {
      if (t->shape[d] != 1 && t->strides[d] != expect) {
        return raise_parts("ValueError", fn, ": `", name, "` must be contiguous", NULL);
      }
      expect *= t->shape[d];
    }
  }
  return 0;
}

static int64_t numel(const DLTensor* t) {
  int64_t n = 1;
  int32_t d;
  for (d = 0; d < t->ndim; ++d) n *= t->shape[d];
  return n;
}

static int check_count(int32_t num_args, int32_t expected, const char* fn) {
  char got[16], want[16];
  if (num_args == expected) return 0;
  snprintf(got, sizeof(got), "%d", (int)num_args);
  snprintf(want, sizeof(want), "%d", (int)expected);
  return raise_parts("TypeError", fn, ": expected ", want, " arguments, got ", got);
}

/* ---- exported functions ------------------------------------------------- */

TVM_FFI_DLL_EXPORT int __tvm_ffi_c_add_one(void* self, const TVMFFIAny* args, int32_t num_args,
                                           TVMFFIAny* result) {
  const char* fn = "c_add_one";
  DLTensor* x;
  DLTensor* y;
  const float* src;
  float* dst;
  int64_t i, n;
  int32_t d;
  (void)self;
  if (check_count(num_args, 2, fn) != 0) return -1;
  if ((x = tensor_arg(args, 0, fn, "x")) == NULL) return -1;
  if ((y = tensor_arg(args, 1, fn, "y")) == NULL) return -1;
  if (check_float32_cpu(x, fn, "x") != 0 || check_float32_cpu(y, fn, "y") != 0) return -1;
  if (x->ndim != y->ndim)
    return raise_parts("ValueError", fn, ": `x` and `y` differ in rank", NULL, NULL, NULL);
  for (d = 0; d < x->ndim; ++d) {
    if (x->shape[d] != y->shape[d]) {
      return raise_parts("ValueError", fn, ": `x` and `y` must have the same shape", NULL, NULL,
                         NULL);
    }
  }
  src = (const float*)((const char*)x->data + x->byte_offset);
  dst = (float*)((char*)y->data + y->byte_offset);
  n = numel(x);
  for (i = 0; i < n; ++i) dst[i] = src[i] + 1.0f;
  result->type_index = kTVMFFINone;
  result->zero_padding = 0;
  result->v_int64 = 0;
  return 0;
}

TVM_FFI_DLL_EXPORT int __tvm_ffi_c_sum(void* self, const TVMFFIAny* args, int32_t num_args,
                                       TVMFFIAny* result) {
  const char* fn = "c_sum";
  DLTensor* x;
  const float* p;
  double s = 0;
  int64_t i, n;
  (void)self;
  if (check_count(num_args, 1, fn) != 0) return -1;
  if ((x = tensor_arg(args, 0, fn, "x")) == NULL) return -1;
  if (check_float32_cpu(x, fn, "x") != 0) return -1;
  p = (const float*)((const char*)x->data + x->byte_offset);
  n = numel(x);
  for (i = 0; i < n; ++i) s += p[i];
  result->type_index = kTVMFFIFloat;
  result->zero_padding = 0;
  result->v_float64 = s;
  return 0;
}

TVM_FFI_DLL_EXPORT int __tvm_ffi_c_add_int_from_imports(void* self, const TVMFFIAny* args,
                                                        int32_t num_args, TVMFFIAny* result) {
  /* Generated code looks the function up once and keeps the borrowed handle:
   * the module owns it for as long as the module lives (here: the process). */
  static TVMFFIObjectHandle add_int = NULL;
  TVMFFIAny call_args[2];
  const char* fn = "c_add_int_from_imports";
  (void)self;
  if (check_count(num_args, 2, fn) != 0) return -1;
  if (args[0].type_index != kTVMFFIInt || args[1].type_index != kTVMFFIInt) {
    return raise_parts("TypeError", fn, ": both arguments must be int", NULL, NULL, NULL);
  }
  if (add_int == NULL) {
    if (TVMFFIEnvModLookupFromImports(__tvm_ffi__library_ctx, "add_int", &add_int) != 0) {
      return -1; /* the AttributeError stays raised for our caller */
    }
  }
  call_args[0] = args[0];
  call_args[1] = args[1];
  result->type_index = kTVMFFINone;
  return TVMFFIFunctionCall(add_int, call_args, 2, result);
}

TVM_FFI_DLL_EXPORT int __tvm_ffi_c_library_ctx(void* self, const TVMFFIAny* args, int32_t num_args,
                                               TVMFFIAny* result) {
  (void)self;
  (void)args;
  if (check_count(num_args, 0, "c_library_ctx") != 0) return -1;
  result->type_index = kTVMFFIOpaquePtr;
  result->zero_padding = 0;
  result->v_ptr = __tvm_ffi__library_ctx;
  return 0;
}
